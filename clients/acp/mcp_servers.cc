#include "clients/acp/mcp_servers.h"

#include <filesystem>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace raw::acp {
namespace {

absl::Status Bad(size_t i, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("mcpServers[", i, "]: ", why));
}

bool IsString(const Json& o, const char* key) { return o.contains(key) && o[key].is_string(); }

// [{name, value}] into `out`; false when malformed.
template <typename Map>
bool NameValues(const Json& list, Map* out) {
  if (!list.is_array()) return false;
  for (const Json& item : list) {
    if (!item.is_object() || !IsString(item, "name") || !IsString(item, "value")) return false;
    (*out)[item["name"].get<std::string>()] = item["value"].get<std::string>();
  }
  return true;
}

constexpr size_t kMaxNameChars = 32;

bool NameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// At most `max` characters of `name`, without a trailing '_'.
std::string Cut(std::string name, size_t max) {
  if (name.size() > max) name.resize(max);
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name;
}

// `label` with only name characters, no "__", at most 32 characters.
std::string ServerName(const std::string& label) {
  std::string name;
  bool replaced = false;  // the last character written stands for others
  for (char c : label) {
    if (!NameChar(c)) {
      if (!replaced) name.push_back('-');
      replaced = true;
      continue;
    }
    replaced = false;
    if (c == '_' && !name.empty() && name.back() == '_') continue;
    name.push_back(c);
  }
  name = Cut(std::move(name), kMaxNameChars);
  return name.empty() ? "server" : name;
}

}  // namespace

void AssignServerNames(std::vector<v1::SessionMcpServer>& servers, std::set<std::string> taken) {
  for (v1::SessionMcpServer& server : servers) {
    std::string base = ServerName(server.name());
    std::string name = base;
    for (int n = 2; taken.count(name) != 0; ++n) {
      std::string suffix = absl::StrCat("-", n);
      name = Cut(base, kMaxNameChars - suffix.size()) + suffix;
    }
    taken.insert(name);
    server.set_name(name);
  }
}

absl::StatusOr<std::vector<v1::SessionMcpServer>> SessionMcpServers(const Json& servers) {
  if (!servers.is_array()) return absl::InvalidArgumentError("\"mcpServers\" must be an array");
  std::vector<v1::SessionMcpServer> out;
  for (size_t i = 0; i < servers.size(); ++i) {
    const Json& s = servers[i];
    if (!s.is_object()) return Bad(i, "not an object");
    if (!IsString(s, "name") || s["name"].get<std::string>().empty()) {
      return Bad(i, "\"name\" must be a non-empty string");
    }
    v1::SessionMcpServer server;
    server.set_name(s["name"].get<std::string>());
    std::string type = IsString(s, "type") ? s["type"].get<std::string>() : "stdio";
    if (type == "stdio") {
      if (!IsString(s, "command") || !std::filesystem::path(s["command"].get<std::string>()).is_absolute()) {
        return Bad(i, "\"command\" must be an absolute path");
      }
      server.set_command(s["command"].get<std::string>());
      const Json args = s.value("args", Json::array());
      if (!args.is_array()) return Bad(i, "\"args\" must be an array of strings");
      for (const Json& a : args) {
        if (!a.is_string()) return Bad(i, "\"args\" must be an array of strings");
        server.add_args(a.get<std::string>());
      }
      if (!NameValues(s.value("env", Json::array()), server.mutable_env())) {
        return Bad(i, "\"env\" must be a list of {name, value}");
      }
    } else if (type == "http") {
      if (!IsString(s, "url")) return Bad(i, "\"url\" must be a string");
      server.set_url(s["url"].get<std::string>());
      if (!NameValues(s.value("headers", Json::array()), server.mutable_headers())) {
        return Bad(i, "\"headers\" must be a list of {name, value}");
      }
    } else if (type == "sse") {
      return Bad(i, "SSE MCP servers are not supported (mcpCapabilities.sse is false); use http");
    } else {
      return Bad(i, absl::StrCat("unknown type \"", type, "\""));
    }
    out.push_back(std::move(server));
  }
  return out;
}

}  // namespace raw::acp
