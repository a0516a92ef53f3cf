// Random lowercase hex strings: Redis's run_id and replication ids (40 characters), and the
// $EOF: marks of diskless full syncs. Seeded once per process from the OS; they only need to
// differ between processes and histories, not to be secret.
#pragma once

#include <cstddef>
#include <string>

namespace streamd::text {

std::string random_hex(std::size_t n);

}  // namespace streamd::text
