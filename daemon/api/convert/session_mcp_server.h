// Conversion of raw.v1.SessionMcpServer entries (CreateSession,
// SetSessionMcpServers) to the config layer's SessionMcpServerSpec, which
// checks them. Pure; thread-safe.
#pragma once

#include <vector>

#include "daemon/config/session_mcp_servers.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::api::convert {

std::vector<config::SessionMcpServerSpec> FromProto(
    const google::protobuf::RepeatedPtrField<raw::v1::SessionMcpServer>& servers);

}  // namespace raw::api::convert
