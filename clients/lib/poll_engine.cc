#include "clients/lib/poll_engine.h"

#include <stdlib.h>

namespace raw::client {

void UsePollEngine() { setenv("GRPC_POLL_STRATEGY", "poll", /*overwrite=*/0); }

}  // namespace raw::client
