#include "streamd/rest/rest_executor.h"

#include <string_view>

#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/session.h"
#include "streamd/rest/resp_to_json.h"

namespace streamd::rest {

using nlohmann::json;

namespace {

std::vector<std::string_view> views(const std::vector<std::string>& argv) {
  return {argv.begin(), argv.end()};
}

json error_object(std::string_view text) {
  json j = json::object();
  j["error"] = std::string(text);
  return j;
}

}  // namespace

RestExecutor::RestExecutor(cmd::Dispatcher& dispatcher, cmd::Session& session, RestCall call,
                           Access access)
    : dispatcher_(dispatcher), session_(session), call_(std::move(call)), access_(access) {
  session_.out = &out_;
}

bool RestExecutor::run() {
  if (call_.kind == CallKind::kMultiExec) {
    static const std::vector<std::string> kMulti = {"MULTI"};
    out_.clear();
    dispatcher_.execute(session_, views(kMulti), out_);
    multi_started_ = true;
  }
  if (!step()) return false;
  finish();
  return true;
}

bool RestExecutor::resume() {
  collect();
  if (!step()) return false;
  finish();
  return true;
}

bool RestExecutor::step() {
  while (next_ < call_.commands.size()) {
    const std::vector<std::string>& argv = call_.commands[next_++];
    out_.clear();
    if (auto refusal = refuse_command(argv, access_)) {
      if (call_.kind == CallKind::kMultiExec && multi_refusal_.empty()) {
        multi_refusal_ = *refusal;
      }
      results_.push_back(error_object(*refusal));
      continue;
    }
    std::vector<std::string_view> v = views(argv);
    if (dispatcher_.execute(session_, v, out_) == cmd::DispatchResult::kBlocked) return false;
    collect();
  }
  return true;
}

void RestExecutor::collect() {
  std::size_t pos = 0;
  auto reply = resp_to_json(out_, pos, call_.base64);
  if (!reply) {
    // A command that wrote nothing (cannot happen with the refused commands kept out).
    results_.push_back(json::object({{"result", nullptr}}));
    return;
  }
  if (call_.kind == CallKind::kMultiExec && reply->is_error && multi_refusal_.empty()) {
    multi_refusal_ = reply->error;  // rejected while queueing: EXEC will abort
  }
  results_.push_back(reply->envelope());
}

void RestExecutor::finish() {
  if (call_.kind == CallKind::kMultiExec) {
    finish_multi();
    return;
  }
  if (call_.kind == CallKind::kSingle) {
    const json& r = results_.at(0);
    status_ = r.contains("error") ? 400 : 200;
    body_ = json_text(r);
    return;
  }
  status_ = 200;
  body_ = json_text(results_);
}

void RestExecutor::finish_multi() {
  std::vector<std::string> verb = {multi_refusal_.empty() ? "EXEC" : "DISCARD"};
  out_.clear();
  dispatcher_.execute(session_, views(verb), out_);
  if (!multi_refusal_.empty()) {
    status_ = 400;
    body_ = json_text(error_object(multi_refusal_));
    return;
  }
  // EXEC's reply: an array with one reply per queued command, or an error.
  std::size_t pos = 0;
  auto n = resp_array_header(out_, pos);
  if (!n || *n < 0) {
    pos = 0;
    auto reply = resp_to_json(out_, pos, call_.base64);
    status_ = 400;
    body_ = json_text(error_object(reply && reply->is_error ? reply->error : "EXECABORT"));
    return;
  }
  json arr = json::array();
  for (long long i = 0; i < *n; ++i) {
    auto reply = resp_to_json(out_, pos, call_.base64);
    if (!reply) break;
    arr.push_back(reply->envelope());
  }
  status_ = 200;
  body_ = json_text(arr);
}

}  // namespace streamd::rest
