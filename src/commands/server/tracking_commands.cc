#include "streamd/commands/server/tracking_commands.h"

#include <string>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/tracking.h"

namespace streamd::cmd {

namespace {

// Redis's order of checks: every existing prefix of the client against each new one, then the
// new ones against those given after them.
std::string prefix_overlap_error(const TrackingState& t, const std::vector<std::string>& given) {
  for (std::size_t i = 0; i < given.size(); ++i) {
    for (const std::string& had : t.prefixes) {
      if (ClientTracking::overlap(had, given[i])) {
        return errors::tracking_prefix_overlap(given[i], had, true);
      }
    }
    for (std::size_t j = i + 1; j < given.size(); ++j) {
      if (ClientTracking::overlap(given[i], given[j])) {
        return errors::tracking_prefix_overlap(given[i], given[j], false);
      }
    }
  }
  return {};
}

}  // namespace

// CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX prefix ...] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
void client_tracking(Context& ctx) {
  Session& s = ctx.session;
  ClientTracking::Options o;
  bool redirect_given = false;
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    bool more = j + 1 < ctx.argc();
    std::string_view opt = ctx.arg(j);
    if (iequals(opt, "redirect") && more) {
      ++j;
      if (redirect_given) return ctx.reply.error(errors::kTrackingOneRedirect);
      auto id = parse_int(ctx.arg(j));
      if (!id) return ctx.reply.error(errors::kNotInteger);
      // The client must exist now (it may leave later: messages then report the redirect
      // broken). Redis takes 0 as "no redirect" once past this check, which it cannot pass.
      if (*id <= 0 || !ctx.server.session(static_cast<uint64_t>(*id))) {
        return ctx.reply.error(errors::kTrackingNoRedirectClient);
      }
      o.redirect = static_cast<uint64_t>(*id);
      redirect_given = true;
    } else if (iequals(opt, "bcast")) {
      o.bcast = true;
    } else if (iequals(opt, "optin")) {
      o.optin = true;
    } else if (iequals(opt, "optout")) {
      o.optout = true;
    } else if (iequals(opt, "noloop")) {
      o.noloop = true;
    } else if (iequals(opt, "prefix") && more) {
      o.prefixes.emplace_back(ctx.arg(++j));
    } else {
      return ctx.reply.error(errors::kSyntax);
    }
  }

  std::string_view mode = ctx.arg(2);
  if (iequals(mode, "on")) {
    const TrackingState& t = s.tracking;
    if (!o.bcast && !o.prefixes.empty()) return ctx.reply.error(errors::kTrackingPrefixNeedsBcast);
    if (t.on && t.bcast != o.bcast) return ctx.reply.error(errors::kTrackingSwitchBcast);
    if (o.bcast && (o.optin || o.optout)) return ctx.reply.error(errors::kTrackingOptWithBcast);
    if (o.optin && o.optout) return ctx.reply.error(errors::kTrackingOptinAndOptout);
    if ((o.optin && t.optout) || (o.optout && t.optin)) {
      return ctx.reply.error(errors::kTrackingSwitchOpt);
    }
    if (o.bcast) {
      std::string e = prefix_overlap_error(t, o.prefixes);
      if (!e.empty()) return ctx.reply.error(e);
    }
    ctx.server.tracking().enable(s, o);
  } else if (iequals(mode, "off")) {
    ctx.server.tracking().disable(s);
  } else {
    return ctx.reply.error(errors::kSyntax);
  }
  ctx.reply.ok();
}

// CLIENT CACHING YES|NO: whether the next command (or transaction) is tracked, in OPTIN / OPTOUT
// mode. Its arity is -3 in Redis's table; arguments past the third are ignored, as there.
void client_caching(Context& ctx) {
  TrackingState& t = ctx.session.tracking;
  if (!t.on) return ctx.reply.error(errors::kCachingNotTracking);
  std::string_view opt = ctx.arg(2);
  if (iequals(opt, "yes")) {
    if (!t.optin) return ctx.reply.error(errors::kCachingYesNotOptin);
  } else if (iequals(opt, "no")) {
    if (!t.optout) return ctx.reply.error(errors::kCachingNoNotOptout);
  } else {
    return ctx.reply.error(errors::kSyntax);
  }
  t.caching = true;
  ctx.reply.ok();
}

// CLIENT GETREDIR: the redirect client's id, 0 when tracking without one, -1 when not tracking.
void client_getredir(Context& ctx) {
  const TrackingState& t = ctx.session.tracking;
  ctx.reply.integer(t.on ? static_cast<long long>(t.redirect) : -1);
}

void client_trackinginfo(Context& ctx) {
  const TrackingState& t = ctx.session.tracking;
  std::vector<std::string_view> flags{t.on ? "on" : "off"};
  if (t.bcast) flags.push_back("bcast");
  if (t.optin) {
    flags.push_back("optin");
    if (t.caching) flags.push_back("caching-yes");
  }
  if (t.optout) {
    flags.push_back("optout");
    if (t.caching) flags.push_back("caching-no");
  }
  if (t.noloop) flags.push_back("noloop");
  if (t.broken_redirect) flags.push_back("broken_redirect");
  ctx.reply.map(3);
  ctx.reply.bulk("flags");
  ctx.reply.set(flags.size());
  for (std::string_view f : flags) ctx.reply.bulk(f);
  ctx.reply.bulk("redirect");
  ctx.reply.integer(t.on ? static_cast<long long>(t.redirect) : -1);
  ctx.reply.bulk("prefixes");
  ctx.reply.array(t.prefixes.size());
  for (const std::string& p : t.prefixes) ctx.reply.bulk(p);
}

}  // namespace streamd::cmd
