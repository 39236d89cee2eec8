#include "src/cli/commands.h"

#include <iostream>

#include "src/base/toolchain_environment.h"

namespace fastcuda {

void Complain(const std::string& message) { std::cerr << "fastcuda: " << message << std::endl; }

void ComplainIfVerbose(const std::map<std::string, std::string>& environment, const std::string& message) {
  if (EnvironmentValue(environment, "FASTCUDA_VERBOSE", "0") != "0") Complain(message);
}

}  // namespace fastcuda
