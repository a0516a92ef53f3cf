// INFO: the text of the requested sections (the server family registers the command).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace streamd::cmd {

class Context;
class Server;

// The INFO text for the given section arguments (none: the default sections; "all",
// "everything", "default" and section names, case-insensitive, combine; unknown names are
// ignored). Sections come in Redis's order whatever the argument order.
std::string info_text(Context& ctx, std::span<const std::string_view> sections);

// The INFO command handler.
void info(Context& ctx);

// connected_clients: every client but the replica links, as Redis counts (INFO, /metrics).
std::size_t connected_clients(const Server& server);

// used_memory: the allocator's bytes in use (INFO memory, /metrics).
uint64_t used_memory_bytes();

// INFO server's run_id (40 random hex characters, new at each start) and os.
const std::string& run_id();
std::string os_name();

// Remembers the allocator's usage at startup (used_memory_startup); called once early.
void record_startup_memory();

}  // namespace streamd::cmd
