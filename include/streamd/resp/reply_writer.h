// The reply writer: command code describes a reply in RESP3 terms (maps, sets, nulls, doubles,
// booleans, verbatim strings, pushes) and the writer emits RESP3 or degrades to RESP2 exactly as
// Redis does. Command code never looks at the protocol version.
//
// Invariant: the writer only appends to the output string it was given; a deferred length is a
// recorded offset that is patched (by insertion) when the element count becomes known.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace streamd::resp {

enum class Protocol : int { kResp2 = 2, kResp3 = 3 };

class ReplyWriter {
 public:
  // A placeholder for an aggregate whose element count is not known yet.
  struct Deferred {
    std::size_t offset = 0;
  };

  ReplyWriter(std::string& out, Protocol proto) : out_(&out), proto_(proto) {}

  Protocol protocol() const { return proto_; }
  void set_protocol(Protocol p) { proto_ = p; }
  std::string& buffer() { return *out_; }
  void set_buffer(std::string& out) { out_ = &out; }

  // Simple replies.
  void simple(std::string_view s);  // +s
  void ok() { simple("OK"); }
  // `msg` carries its own prefix ("ERR ...", "WRONGTYPE ...", "NOGROUP ..."). CR/LF inside are
  // replaced by spaces, as Redis does, so the reply stays one line.
  void error(std::string_view msg);
  void integer(long long v);       // :v
  void bulk(std::string_view s);   // $len s
  void bulk_integer(long long v);  // an integer sent as a bulk string
  void null();                     // $-1 / _
  void null_array();               // *-1 / _
  void boolean(bool b);            // :1/:0 / #t #f
  void dbl(double d);              // bulk / ,d
  // `format` is the 3-character type ("txt", "mkd"); it is cut or space-padded to 3 characters.
  void verbatim(std::string_view text, std::string_view format = "txt");  // bulk / =
  void big_number(std::string_view digits);                               // bulk / (

  // Aggregates: the caller writes exactly n elements (2n for a map) afterwards.
  void array(std::size_t n);  // *n
  void map(std::size_t n);    // *2n / %n
  void set(std::size_t n);    // *n / ~n
  void push(std::size_t n);   // *n / >n
  // RESP3 only (|n, then n key/value pairs, then the reply they describe): RESP2 has no
  // attributes, so callers write none there.
  void attribute(std::size_t n);
  void empty_array() { array(0); }

  // Deferred lengths are patched by insertion, so nested ones must be ended innermost first.
  Deferred defer();
  void end_array(Deferred d, std::size_t n);
  void end_map(Deferred d, std::size_t n);
  void end_set(Deferred d, std::size_t n);

  // A map that RESP2 renders as an array of [key, value] pairs rather than a flat array (the
  // XREAD/XREADGROUP reply shape). Write pair_map(n) (or defer + end_pair_map), then for each
  // element pair() followed by the key and the value.
  void pair_map(std::size_t n) {
    header(proto_ == Protocol::kResp3 ? '%' : '*', static_cast<long long>(n));
  }
  void pair() {
    if (proto_ == Protocol::kResp2) out_->append("*2\r\n", 4);
  }
  void end_pair_map(Deferred d, std::size_t n) {
    fill(d, proto_ == Protocol::kResp3 ? '%' : '*', n);
  }

  // Bookkeeping read by dispatch for INFO errorstats and failed_calls.
  std::size_t errors_written() const { return errors_; }
  std::string_view last_error_code() const { return last_error_code_; }

  // Formats a double the way Redis 7.0 does in replies: printf "%.17g" ("0.10000000000000001",
  // "1e+17", "-0"), and "inf"/"-inf"/"nan".
  static std::string format_double(double d);

 private:
  void header(char type, long long n);
  void fill(Deferred d, char type, std::size_t n);

  std::string* out_;
  Protocol proto_;
  std::size_t errors_ = 0;
  std::string last_error_code_;
};

}  // namespace streamd::resp
