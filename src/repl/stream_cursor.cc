#include "streamd/repl/stream_cursor.h"

#include "streamd/repl/master.h"

namespace streamd::repl {

std::string_view StreamCursor::peek() const {
  const Backlog* b = master_.backlog();
  if (!b || !b->retains(pos_)) return {};
  return b->span_from(pos_);
}

void StreamCursor::consume(std::size_t n) {
  pos_ += static_cast<int64_t>(n);
  master_.readers_moved();
}

std::size_t StreamCursor::size() const {
  const Backlog* b = master_.backlog();
  if (!b || !b->retains(pos_)) return 0;
  return static_cast<std::size_t>(b->next_offset() - pos_);
}

}  // namespace streamd::repl
