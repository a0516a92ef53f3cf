#include "streamd/rest/error_text.h"

namespace streamd::rest::errors {

std::string readonly(std::string_view full_name) {
  return "NOPERM this user has no permissions to run the '" + std::string(full_name) + "' command";
}

std::string unsupported(std::string_view full_name) {
  return "ERR '" + std::string(full_name) +
         "' is not supported over REST (use /multi-exec for transactions)";
}

}  // namespace streamd::rest::errors
