// Pel: the run indexes (owner walks and the time index), the walks over them and the checks
// (see pel.h for what a run is and why).
#include <cassert>
#include <cstring>

#include "streamd/engine/pel.h"

namespace streamd::engine {

namespace {

constexpr std::size_t kOwnerAttrLen = 4;
constexpr std::size_t kTimeAttrLen = 9;

void put_be(uint8_t* out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(v >> (8 * (n - 1 - i)));
}

}  // namespace

// The owner index: the slot, big-endian. The time index: zone 0 (NACKed, by release number) or
// 1 (owned, by delivery time), then the number with its sign bit flipped, big-endian, so that
// byte order is numeric order for negative times too.
Pel::Attr Pel::attr(Index ix, const PelRecord& r) {
  Attr a{};
  if (ix == Index::kOwner) {
    if (r.owner == kNoOwner) return a;  // no owner run
    put_be(a.bytes, r.owner, 4);
    a.len = kOwnerAttrLen;
    return a;
  }
  a.bytes[0] = r.owner == kNoOwner ? 0 : 1;
  put_be(a.bytes + 1, static_cast<uint64_t>(r.time) ^ (uint64_t{1} << 63), 8);
  a.len = kTimeAttrLen;
  return a;
}

Pel::RunKey Pel::run_key(const Attr& a, StreamId start) {
  RunKey k;
  PelKey id(start);
  std::memcpy(k.bytes, a.bytes, a.len);
  std::memcpy(k.bytes + a.len, id.view().data(), id.view().size());
  k.len = a.len + id.view().size();
  return k;
}

StreamId Pel::run_end(Index ix, const Attr& a, StreamId id) const {
  auto it = runs(ix).seek(SeekOp::kLe, run_key(a, id).view());
  assert(it.valid() && it.key().substr(0, a.len) == a.view() && !(it.value() < id));
  return it.value();
}

Pel::Neighbours Pel::neighbours(StreamId id) const {
  // One iterator for both sides where it can (iterators allocate): from the record (which is in
  // the tree) one step forward, then back over it to the previous one.
  Neighbours nb;
  PelKey k(id);
  auto it = tree_.seek(SeekOp::kGe, k.view());
  assert(it.valid() && it.key() == k.view());
  ++it;
  if (it.valid()) {
    nb.next = {true, PelKey::decode(it.key()), it.value()};
    --it;
    --it;
  } else {
    it = tree_.seek(SeekOp::kLt, k.view());
  }
  if (it.valid()) nb.prev = {true, PelKey::decode(it.key()), it.value()};
  return nb;
}

void Pel::attach(Index ix, StreamId first, StreamId last, const Attr& a, const Neighbours& nb) {
  RadixTree<StreamId>& t = runs(ix);
  Attr ap{}, an{};
  if (nb.prev.present) ap = attr(ix, nb.prev.rec);
  if (nb.next.present) an = attr(ix, nb.next.rec);
  const bool both = nb.prev.present && nb.next.present && ap == an;
  if (both && ap.len != 0 && !(ap == a)) {
    // The records land inside another attribute's run: split it between prev and next.
    auto it = t.seek(SeekOp::kLe, run_key(ap, nb.prev.id).view());
    assert(it.valid() && !(it.value() < nb.next.id));
    StreamId end = it.value();
    it.value() = nb.prev.id;
    t.insert(run_key(ap, nb.next.id).view(), end);
  }
  if (a.len == 0) return;
  const bool left = nb.prev.present && ap == a;
  const bool right = nb.next.present && an == a;
  if (left && right) return;  // inside the run through prev and next already
  if (left) {
    auto it = t.seek(SeekOp::kLe, run_key(a, nb.prev.id).view());
    assert(it.valid() && it.value() == nb.prev.id);
    it.value() = last;
  } else if (right) {
    StreamId end;
    [[maybe_unused]] bool had = t.erase(run_key(a, nb.next.id).view(), &end);
    assert(had);
    t.insert(run_key(a, first).view(), end);
  } else {
    t.insert(run_key(a, first).view(), last);
  }
}

void Pel::detach(Index ix, std::span<const Seg> segs, const Neighbours& nb) {
  RadixTree<StreamId>& t = runs(ix);
  Attr ap{}, an{};
  if (nb.prev.present) ap = attr(ix, nb.prev.rec);
  if (nb.next.present) an = attr(ix, nb.next.rec);
  for (std::size_t k = 0; k < segs.size(); ++k) {
    const Seg& s = segs[k];
    if (s.a.len == 0) continue;
    const bool left = k == 0 && nb.prev.present && ap == s.a;
    const bool right = k + 1 == segs.size() && nb.next.present && an == s.a;
    if (left && right) {
      // inside the run through prev and next: the run stays as it is
    } else if (left) {
      auto it = t.seek(SeekOp::kLe, run_key(s.a, s.first).view());
      assert(it.valid() && it.value() == s.last);
      it.value() = nb.prev.id;
    } else if (right) {
      StreamId end;
      [[maybe_unused]] bool had = t.erase(run_key(s.a, s.first).view(), &end);
      assert(had);
      t.insert(run_key(s.a, nb.next.id).view(), end);
    } else {
      [[maybe_unused]] bool had = t.erase(run_key(s.a, s.first).view());
      assert(had);
    }
  }
  // prev's run and next's run touch now, unless they were one run already (no old record in
  // between, or only records of their attribute): merge them.
  const bool both = nb.prev.present && nb.next.present && ap == an;
  const bool inside = segs.empty() || (segs.size() == 1 && segs[0].a == ap);
  if (both && ap.len != 0 && !inside) {
    StreamId end;
    [[maybe_unused]] bool had = t.erase(run_key(ap, nb.next.id).view(), &end);
    assert(had);
    auto it = t.seek(SeekOp::kLe, run_key(ap, nb.prev.id).view());
    assert(it.valid() && it.value() == nb.prev.id);
    it.value() = end;
  }
}

// ---- walks -----------------------------------------------------------------------------------

Pel::Iterator Pel::seek(StreamId from, SeekOp op) const {
  Iterator it;
  it.pel_ = this;
  it.rec_ = tree_.seek(op, PelKey(from).view());
  return it;
}

void Pel::Iterator::enter_run() {
  if (!run_.valid() || run_.key().substr(0, prefix_.size()) != prefix_) {
    rec_ = RecIt();
    return;
  }
  std::string_view start = run_.key().substr(attr_len_);
  rec_ = pel_->tree_.seek(SeekOp::kGe, start);
  run_end_ = run_.value();
  assert(rec_.valid() && rec_.key() == start);
}

Pel::Iterator& Pel::Iterator::operator++() {
  if (!by_runs_) {
    ++rec_;
    return *this;
  }
  // At the run's last record go straight to the next run: the record after it belongs to
  // another run, so stepping onto it first would be a wasted tree step per run.
  if (id() != run_end_) {
    ++rec_;
    assert(rec_.valid() && !(run_end_ < id()));
    return *this;
  }
  ++run_;
  enter_run();
  return *this;
}

Pel::Iterator Pel::by_time() const {
  Iterator it;
  it.pel_ = this;
  it.by_runs_ = true;
  it.attr_len_ = kTimeAttrLen;
  it.run_ = runs(Index::kTime).begin();
  it.enter_run();
  return it;
}

Pel::Iterator Pel::owner_seek(uint32_t owner, StreamId from) const {
  Iterator it;
  it.pel_ = this;
  it.by_runs_ = true;
  it.attr_len_ = kOwnerAttrLen;
  Attr a = attr(Index::kOwner, PelRecord{0, 0, owner});
  it.prefix_ = a.view();
  RunKey key = run_key(a, from);
  it.run_ = runs(Index::kOwner).seek(SeekOp::kLe, key.view());
  if (it.run_.valid() && it.run_.key().substr(0, a.len) == a.view() && !(it.run_.value() < from)) {
    // `from` falls inside a run: start at the first record >= from (it is in the run).
    it.rec_ = tree_.seek(SeekOp::kGe, PelKey(from).view());
    it.run_end_ = it.run_.value();
    return it;
  }
  // The first run after `from`: the one after the run found (the greatest key <= the sought
  // one), without a second seek.
  if (it.run_.valid()) {
    ++it.run_;
  } else {
    it.run_ = runs(Index::kOwner).begin();
  }
  it.enter_run();
  return it;
}

// ---- checks ----------------------------------------------------------------------------------

bool Pel::check_index(Index ix, std::string* why) const {
  auto fail = [why](std::string msg) {
    if (why) *why = std::move(msg);
    return false;
  };
  const RadixTree<StreamId>& t = runs(ix);
  const char* name = ix == Index::kOwner ? "owner" : "time";
  std::size_t found = 0;
  Attr cur{};
  StreamId start, end;
  bool open = false;
  auto emit = [&]() -> bool {
    if (!open || cur.len == 0) return true;
    ++found;
    const StreamId* v = t.find(run_key(cur, start).view());
    if (!v) return fail(std::string(name) + " run at " + start.to_string() + " is missing");
    if (*v != end) {
      return fail(std::string(name) + " run at " + start.to_string() + " ends at " +
                  v->to_string() + ", not " + end.to_string());
    }
    return true;
  };
  for (auto it = tree_.begin(); it.valid(); ++it) {
    StreamId id = PelKey::decode(it.key());
    Attr a = attr(ix, it.value());
    if (open && a == cur) {
      end = id;
      continue;
    }
    if (!emit()) return false;
    cur = a, start = end = id, open = true;
  }
  if (!emit()) return false;
  if (found != t.size()) {
    return fail(std::string(name) + " index holds " + std::to_string(t.size()) +
                " runs, the records make " + std::to_string(found));
  }
  return true;
}

bool Pel::check(std::string* why) const {
  auto fail = [why](std::string msg) {
    if (why) *why = std::move(msg);
    return false;
  };
  if (!tree_.check_invariants()) return fail("PEL record tree is malformed");
  if (!runs_[0].check_invariants() || !runs_[1].check_invariants()) {
    return fail("PEL run tree is malformed");
  }
  if (!big_counts_.check_invariants()) return fail("PEL count tree is malformed");
  if (owner_sizes_.size() != owners_.size()) return fail("owner tables disagree");
  std::vector<std::size_t> sizes(owners_.size(), 0);
  std::size_t nacked = 0, big = 0;
  for (auto it = tree_.begin(); it.valid(); ++it) {
    StreamId id = PelKey::decode(it.key());
    const PelRecord& r = it.value();
    if (r.owner == kNoOwner) {
      ++nacked;
      if (r.time < 1 || r.time > release_seq_) {
        return fail(id.to_string() + " is NACKed with release number " + std::to_string(r.time));
      }
      if (r.time == release_seq_ && last_release_id_ < id) {
        return fail(id.to_string() + " is NACKed after the last release");
      }
    } else {
      if (r.owner >= owners_.size() || owners_[r.owner] == nullptr) {
        return fail(id.to_string() + " is owned by a free slot");
      }
      ++sizes[r.owner];
    }
    if (r.count == kBigCount) {
      ++big;
      const uint64_t* v = big_counts_.find(it.key());
      if (!v || *v < kBigCount) return fail(id.to_string() + " has no big count");
    }
  }
  if (big != big_counts_.size()) return fail("big counts of IDs that are not pending");
  if (nacked != nacked_) return fail("NACKed count is wrong");
  for (std::size_t o = 0; o < sizes.size(); ++o) {
    if (sizes[o] != owner_sizes_[o]) return fail("owner slot " + std::to_string(o) + " size");
  }
  return check_index(Index::kOwner, why) && check_index(Index::kTime, why);
}

bool Pel::check_id(StreamId id) const {
  const PelRecord* r = tree_.find(PelKey(id).view());
  if (!r) return true;
  for (Index ix : {Index::kOwner, Index::kTime}) {
    Attr a = attr(ix, *r);
    if (a.len == 0) continue;
    auto it = runs(ix).seek(SeekOp::kLe, run_key(a, id).view());
    if (!it.valid() || it.key().substr(0, a.len) != a.view() || it.value() < id) return false;
  }
  return true;
}

}  // namespace streamd::engine
