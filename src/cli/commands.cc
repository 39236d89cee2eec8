#include "src/cli/commands.h"

#include <iostream>

#include "src/base/process.h"

namespace fastcuda {

void Complain(const std::string& message) { std::cerr << "fastcuda: " << message << std::endl; }

void ComplainIfVerbose(const std::string& message) {
  if (EnvironmentVariable("FASTCUDA_VERBOSE", "0") != "0") Complain(message);
}

}  // namespace fastcuda
