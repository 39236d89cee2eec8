#include "src/cli/commands.h"

#include <iostream>

namespace fastcuda {

void Complain(const std::string& message) { std::cerr << "fastcuda: " << message << std::endl; }

}  // namespace fastcuda
