#include "streamd/commands/core/redaction.h"

#include "streamd/commands/core/args.h"
#include "streamd/config/config.h"

namespace streamd::cmd {

std::vector<bool> redacted_arguments(const CommandSpec& spec,
                                     std::span<const std::string_view> argv,
                                     const config::Config& cfg) {
  std::vector<bool> r(argv.size(), false);
  if (spec.full_name == "auth") {
    for (std::size_t i = 1; i < argv.size(); ++i) r[i] = true;
  } else if (spec.full_name == "acl|setuser" || spec.full_name == "acl|deluser" ||
             spec.full_name == "acl|getuser") {
    // The user's name and rules (passwords among them), as Redis redacts them.
    for (std::size_t i = 2; i < argv.size(); ++i) r[i] = true;
  } else if (spec.full_name == "migrate") {
    for (std::size_t i = 6; i < argv.size(); ++i) {
      std::size_t more = argv.size() - 1 - i;
      if (iequals(argv[i], "auth") && more >= 1) {
        r[++i] = true;
      } else if (iequals(argv[i], "auth2") && more >= 2) {
        r[i + 1] = r[i + 2] = true;
        i += 2;
      } else if (iequals(argv[i], "keys")) {
        break;
      }
    }
  } else if (spec.full_name == "hello") {
    for (std::size_t i = 2; i < argv.size(); ++i) {
      std::size_t more = argv.size() - 1 - i;
      if (iequals(argv[i], "auth") && more >= 2) {
        r[i + 1] = r[i + 2] = true;
        i += 2;
      } else if (iequals(argv[i], "setname") && more >= 1) {
        i += 1;
      } else {
        break;
      }
    }
  } else if (spec.full_name == "config|set") {
    // CONFIG SET name value [name value ...]: the value after each secret name.
    for (std::size_t i = 2; i + 1 < argv.size(); i += 2) {
      const config::Directive* d = cfg.find(argv[i]);
      if (d && d->secret) r[i + 1] = true;
    }
  }
  return r;
}

}  // namespace streamd::cmd
