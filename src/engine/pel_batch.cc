// Pel: the batch changes (see pel.h, "batches"). A group is a maximal set of the batch's IDs that
// are neighbours in the record tree; its records are walked once with one iterator, and the run
// indexes are updated once for the whole group: detach() takes out the runs of its old
// segments, attach() puts the group in as one range of the new attribute.
#include <algorithm>
#include <cassert>

#include "streamd/engine/pel.h"

namespace streamd::engine {

template <class Visit>
std::size_t Pel::walk_group(std::span<const StreamId> ids, std::size_t i, Group& g, Visit&& visit) {
  g.nb = Neighbours{};
  g.segs[0].clear();
  g.segs[1].clear();
  g.records = 0;
  PelKey k(ids[i]);
  auto it = tree_.seek(SeekOp::kGe, k.view());
  if (!it.valid() || it.key() != k.view()) return i + 1;
  {
    auto before = it;
    --before;
    if (before.valid()) g.nb.prev = {true, PelKey::decode(before.key()), before.value()};
  }
  g.first = ids[i];
  while (true) {
    PelRecord& r = it.value();
    const StreamId id = ids[i];
    if (r.owner != kUnlinked) {
      for (Index ix : {Index::kOwner, Index::kTime}) {
        std::vector<Seg>& segs = g.segs[static_cast<int>(ix)];
        Attr a = attr(ix, r);
        if (!segs.empty() && segs.back().a == a) {
          segs.back().last = id;
        } else {
          segs.push_back({a, id, id});
        }
      }
    }
    visit(id, r);
    g.last = id;
    ++g.records;
    ++i;
    ++it;
    if (!it.valid()) break;
    StreamId next = PelKey::decode(it.key());
    if (i == ids.size() || ids[i] != next) {
      g.nb.next = {true, next, it.value()};
      break;
    }
  }
  return i;
}

void Pel::relink_group(const Group& g, const PelRecord& now) {
  for (Index ix : {Index::kOwner, Index::kTime}) {
    detach(ix, g.segs[static_cast<int>(ix)], g.nb);
    attach(ix, g.first, g.last, attr(ix, now), g.nb);
  }
}

void Pel::redeliver_many(std::span<const StreamId> ids, uint32_t owner, int64_t time, bool bump) {
  assert(owner != kNoOwner && owners_[owner] != nullptr);
  std::vector<StreamId> sorted;
  if (!std::is_sorted(ids.begin(), ids.end())) {
    sorted.assign(ids.begin(), ids.end());
    std::sort(sorted.begin(), sorted.end());
    ids = sorted;
  }
  const PelRecord now{time, 0, owner};
  Group g;
  for (std::size_t i = 0; i < ids.size();) {
    i = walk_group(ids, i, g, [&](StreamId id, PelRecord& r) {
      account(r, -1);
      r.owner = owner;
      r.time = time;
      account(r, 1);
      if (bump) store_count(id, &r, bumped(count_of(id, r)));
    });
    assert(g.records != 0);  // every ID is in the tree
    if (g.records != 0) relink_group(g, now);
  }
}

void Pel::deliver(std::span<const StreamId> ids, uint32_t owner, int64_t time) {
  assert(owner != kNoOwner && owners_[owner] != nullptr);
  assert(std::is_sorted(ids.begin(), ids.end()));
  // The new records go in first, unlinked (in no run: walk_group leaves them out of the old
  // segments), so that the groups are the runs of IDs adjacent after the delivery.
  for (StreamId id : ids) tree_.insert(PelKey(id).view(), PelRecord{time, 1, kUnlinked});
  const PelRecord now{time, 0, owner};
  Group g;
  for (std::size_t i = 0; i < ids.size();) {
    i = walk_group(ids, i, g, [&](StreamId id, PelRecord& r) {
      if (r.owner != kUnlinked) {
        account(r, -1);
        store_count(id, &r, 1);
      }
      r.owner = owner;
      r.time = time;
      account(r, 1);
    });
    assert(g.records != 0);  // every ID is in the tree
    if (g.records != 0) relink_group(g, now);
  }
}

std::size_t Pel::erase_many(std::span<const StreamId> ids) {
  std::vector<StreamId> sorted(ids.begin(), ids.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::size_t erased = 0;
  Group g;
  for (std::size_t i = 0; i < sorted.size();) {
    const std::size_t from = i;
    bool big = false;
    i = walk_group(sorted, i, g, [&](StreamId, PelRecord& r) {
      account(r, -1);
      big = big || r.count == kBigCount;
    });
    if (g.records == 0) continue;
    detach(Index::kOwner, g.segs[0], g.nb);
    detach(Index::kTime, g.segs[1], g.nb);
    for (std::size_t k = from; k < i; ++k) {
      PelKey key(sorted[k]);
      if (big) big_counts_.erase(key.view());
      tree_.erase(key.view());
    }
    erased += g.records;
  }
  return erased;
}

}  // namespace streamd::engine
