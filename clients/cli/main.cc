// The `raw` executable: see dispatch.h.
#include <iostream>
#include <string>
#include <vector>

#include "clients/cli/dispatch.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return raw::cli::Dispatch(args, std::cout, std::cerr, raw::ProcessEnv());
}
