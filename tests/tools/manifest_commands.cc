// Test tool: reads a Ninja manifest with FastCuda's reader and prints each
// edge's evaluated command, one a line (phony edges have none), so that
// tests/integration/manifest_reader.sh can compare them with what
// `ninja -t commands` prints. Paths are read relative to the current
// directory, as Ninja reads them.
//
// usage: manifest_commands MANIFEST
#include <iostream>

#include "ninja-gen/manifest.h"
#include "ninja-gen/manifest_parser.h"
#include "src/base/file_system.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: manifest_commands MANIFEST\n";
    return 2;
  }
  try {
    fastcuda::RealFileSystem fs;
    fastcuda::Manifest manifest = fastcuda::ReadManifest(fs, argv[1]);
    for (const fastcuda::ManifestEdge& edge : manifest.edges) {
      if (edge.rule == fastcuda::kPhonyRule) continue;
      std::cout << fastcuda::EvaluateEdgeVariable(manifest, edge, "command") << "\n";
    }
  } catch (const fastcuda::ManifestError& error) {
    std::cerr << "manifest_commands: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
