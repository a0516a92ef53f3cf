#include "streamd/persist/startup.h"

#include "streamd/persist/aof_service.h"
#include "streamd/persist/rdb_service.h"

namespace streamd::persist {

bool load_dataset(RdbService& rdb, AofService& aof, bool appendonly) {
  if (!appendonly && !rdb.load_at_startup()) return false;
  return aof.start();
}

}  // namespace streamd::persist
