// CLIENT TRACKING, CLIENT CACHING, CLIENT GETREDIR and CLIENT TRACKINGINFO (client-side caching,
// commands/core/tracking.h). The CLIENT container's table row (connection_commands.cc) lists them.
#pragma once

namespace streamd::cmd {

class Context;

void client_tracking(Context& ctx);
void client_caching(Context& ctx);
void client_getredir(Context& ctx);
void client_trackinginfo(Context& ctx);

}  // namespace streamd::cmd
