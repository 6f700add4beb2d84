#include "daemon/api/convert/session_mcp_server.h"

namespace raw::api::convert {

std::vector<config::SessionMcpServerSpec> FromProto(
    const google::protobuf::RepeatedPtrField<raw::v1::SessionMcpServer>& servers) {
  std::vector<config::SessionMcpServerSpec> out;
  out.reserve(servers.size());
  for (const raw::v1::SessionMcpServer& server : servers) {
    config::SessionMcpServerSpec spec;
    spec.name = server.name();
    spec.command = server.command();
    spec.args.assign(server.args().begin(), server.args().end());
    spec.env.insert(server.env().begin(), server.env().end());
    spec.url = server.url();
    spec.headers.insert(server.headers().begin(), server.headers().end());
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace raw::api::convert
