// Which file the dataset comes from at startup, with Redis's precedence: the AOF when appendonly
// is yes (its manifest, or an old single-file AOF; dump.rdb is then ignored even if present),
// otherwise `dbfilename` in the working directory. Either way the AOF service is started
// afterwards (with appendonly no it only attaches, ready for CONFIG SET appendonly yes).
#pragma once

namespace streamd::persist {

class AofService;
class RdbService;

// False: startup must stop (the reason is logged).
bool load_dataset(RdbService& rdb, AofService& aof, bool appendonly);

}  // namespace streamd::persist
