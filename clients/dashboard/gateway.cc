#include "clients/dashboard/gateway.h"

namespace raw::dashboard {

v1::AcquireLeaseRequest Gateway::LeaseRequest(const std::string& session_id,
                                              const std::string& name, bool request_handover,
                                              bool wait_for_release) const {
  v1::AcquireLeaseRequest request;
  request.set_session_id(session_id);
  request.set_client_name(name);
  request.set_client_kind("raw-dashboard");
  request.set_client_pid(pid);
  request.set_request_handover(request_handover);
  request.set_wait_for_release(wait_for_release && !request_handover);
  return request;
}

}  // namespace raw::dashboard
