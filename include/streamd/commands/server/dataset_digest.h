// DEBUG DIGEST and DEBUG DIGEST-VALUE: SHA1-based digests of the dataset and of single values,
// computed exactly as redis-server computes them (debug.c), so that the digest of a streamd
// dataset equals the digest of the same dataset in Redis (tests compare them across servers,
// and master with replicas, as Redis's own replication tests do).
//
// The scheme: xor(d, x) xors SHA1(x) into d (order-free: sets of keys); mix(d, x) does that and
// then replaces d by SHA1(d) (ordered: a value's parts). A value's digest mixes its type (4 bytes,
// big-endian: string 0, stream 6), then a string's bytes, or each stream entry's "<ms>.<seq>" and
// its fields and values in order (consumer groups are not part of it, as in Redis), then xors
// "!!expire!!" when the key has a TTL. The dataset's: for each non-empty database, mix its index
// (4 bytes, big-endian), then for each key xor(final, D) where D is mix(key) followed by its
// value's digest.
// Keys that are expired but still stored count, as Redis iterates its dict. All zeros: empty.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace streamd::engine {
class Keyspace;
struct Entry;
}  // namespace streamd::engine

namespace streamd::cmd {

using Digest = std::array<unsigned char, 20>;

// The dataset's digest, as 40 lowercase hex characters.
std::string dataset_digest(const engine::Keyspace& ks);
// One stored value's digest (its key is not part of it), as 40 lowercase hex characters.
std::string value_digest(const engine::Entry& e);

}  // namespace streamd::cmd
