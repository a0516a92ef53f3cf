#include "streamd/resp/reply_writer.h"

#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace streamd::resp {

void ReplyWriter::header(char type, long long n) {
  // One append of the whole header: pipelined replies are mostly headers and short bulks, and
  // each append checks the capacity again.
  char buf[32];
  buf[0] = type;
  char* end = std::to_chars(buf + 1, buf + sizeof buf - 2, n).ptr;
  end[0] = '\r';
  end[1] = '\n';
  out_->append(buf, static_cast<std::size_t>(end + 2 - buf));
}

void ReplyWriter::simple(std::string_view s) {
  out_->push_back('+');
  out_->append(s);
  out_->append("\r\n", 2);
}

void ReplyWriter::error(std::string_view msg) {
  ++errors_;
  std::size_t space = msg.find(' ');
  last_error_code_.assign(msg.substr(0, space));
  out_->push_back('-');
  std::size_t start = out_->size();
  out_->append(msg);
  for (std::size_t i = start; i < out_->size(); ++i) {
    if ((*out_)[i] == '\r' || (*out_)[i] == '\n') (*out_)[i] = ' ';
  }
  out_->append("\r\n", 2);
}

void ReplyWriter::integer(long long v) {
  header(':', v);
}

void ReplyWriter::bulk(std::string_view s) {
  // Header, payload and CRLF sized at once, then copied in: one capacity check instead of three.
  char head[24];
  head[0] = '$';
  char* hend = std::to_chars(head + 1, head + sizeof head - 2, s.size()).ptr;
  hend[0] = '\r';
  hend[1] = '\n';
  const std::size_t hn = static_cast<std::size_t>(hend + 2 - head);
  const std::size_t at = out_->size();
  if (s.data() >= out_->data() && s.data() < out_->data() + at) {
    // A view into this very buffer (resize could move it): copied out first.
    bulk(std::string(s));
    return;
  }
  out_->resize(at + hn + s.size() + 2);
  char* p = out_->data() + at;
  std::memcpy(p, head, hn);
  if (!s.empty()) std::memcpy(p + hn, s.data(), s.size());
  p[hn + s.size()] = '\r';
  p[hn + s.size() + 1] = '\n';
}

void ReplyWriter::bulk_integer(long long v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  bulk(std::string_view(buf, static_cast<std::size_t>(end - buf)));
}

void ReplyWriter::null() {
  if (proto_ == Protocol::kResp3) {
    out_->append("_\r\n", 3);
  } else {
    out_->append("$-1\r\n", 5);
  }
}

void ReplyWriter::null_array() {
  if (proto_ == Protocol::kResp3) {
    out_->append("_\r\n", 3);
  } else {
    out_->append("*-1\r\n", 5);
  }
}

void ReplyWriter::boolean(bool b) {
  if (proto_ == Protocol::kResp3) {
    out_->append(b ? "#t\r\n" : "#f\r\n", 4);
  } else {
    out_->append(b ? ":1\r\n" : ":0\r\n", 4);
  }
}

std::string ReplyWriter::format_double(double d) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (std::isnan(d)) return "nan";
  // Redis 7.0 prints doubles with "%.17g" (0.1 -> "0.10000000000000001", 1e17 -> "1e+17",
  // -0.0 -> "-0"), not in the shortest round-trip form that 7.2 moved to.
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%.17g", d);
  return std::string(buf, static_cast<std::size_t>(n));
}

void ReplyWriter::dbl(double d) {
  std::string s = format_double(d);
  if (proto_ == Protocol::kResp3) {
    out_->push_back(',');
    out_->append(s);
    out_->append("\r\n", 2);
  } else {
    bulk(s);
  }
}

void ReplyWriter::verbatim(std::string_view text, std::string_view format) {
  if (proto_ == Protocol::kResp3) {
    header('=', static_cast<long long>(text.size() + 4));
    format = format.substr(0, 3);
    out_->append(format);
    out_->append(3 - format.size(), ' ');
    out_->push_back(':');
    out_->append(text);
    out_->append("\r\n", 2);
  } else {
    bulk(text);
  }
}

void ReplyWriter::big_number(std::string_view digits) {
  if (proto_ == Protocol::kResp3) {
    out_->push_back('(');
    out_->append(digits);
    out_->append("\r\n", 2);
  } else {
    bulk(digits);
  }
}

void ReplyWriter::array(std::size_t n) {
  header('*', static_cast<long long>(n));
}

void ReplyWriter::map(std::size_t n) {
  if (proto_ == Protocol::kResp3) {
    header('%', static_cast<long long>(n));
  } else {
    header('*', static_cast<long long>(n * 2));
  }
}

void ReplyWriter::set(std::size_t n) {
  header(proto_ == Protocol::kResp3 ? '~' : '*', static_cast<long long>(n));
}

void ReplyWriter::push(std::size_t n) {
  header(proto_ == Protocol::kResp3 ? '>' : '*', static_cast<long long>(n));
}

void ReplyWriter::attribute(std::size_t n) {
  assert(proto_ == Protocol::kResp3);
  header('|', static_cast<long long>(n));
}

ReplyWriter::Deferred ReplyWriter::defer() {
  return Deferred{out_->size()};
}

void ReplyWriter::fill(Deferred d, char type, std::size_t n) {
  char buf[32];
  buf[0] = type;
  auto [end, ec] = std::to_chars(buf + 1, buf + sizeof buf - 2, static_cast<long long>(n));
  end[0] = '\r';
  end[1] = '\n';
  out_->insert(d.offset, buf, static_cast<std::size_t>(end + 2 - buf));
}

void ReplyWriter::end_array(Deferred d, std::size_t n) {
  fill(d, '*', n);
}

void ReplyWriter::end_map(Deferred d, std::size_t n) {
  if (proto_ == Protocol::kResp3) {
    fill(d, '%', n);
  } else {
    fill(d, '*', n * 2);
  }
}

void ReplyWriter::end_set(Deferred d, std::size_t n) {
  fill(d, proto_ == Protocol::kResp3 ? '~' : '*', n);
}

}  // namespace streamd::resp
