#include "streamd/repl/identity.h"

#include "streamd/text/random_hex.h"

namespace streamd::repl {

std::string random_replid() {
  return text::random_hex(40);
}

}  // namespace streamd::repl
