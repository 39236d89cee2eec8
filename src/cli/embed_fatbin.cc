#include "src/cli/embed_fatbin.h"

#include <algorithm>
#include <iostream>

#include "src/base/file_system.h"
#include "src/nvcc/fatbin_container.h"
#include "src/nvcc/step.h"

namespace fastcuda {
namespace {

/// Runs the commands one after another, as one step: their output joined,
/// the peak memory the largest.
class CommandChain {
 public:
  CommandChain(const ProcessSpec& base, CommandRunner& runner) : base_(base), runner_(runner) {}

  /// False once a command has failed; later ones are not run.
  bool Run(std::vector<std::string> argv) {
    if (result_.exit_code != 0) return false;
    ProcessSpec spec = base_;
    spec.argv = std::move(argv);
    ProcessResult result = runner_.Run(spec);
    result.stdout_text = result_.stdout_text + result.stdout_text;
    result.stderr_text = result_.stderr_text + result.stderr_text;
    result.max_rss_kb = std::max(result.max_rss_kb, result_.max_rss_kb);
    result_ = std::move(result);
    return result_.exit_code == 0;
  }

  const ProcessResult& result() const { return result_; }

 private:
  ProcessSpec base_;
  CommandRunner& runner_;
  ProcessResult result_;
};

}  // namespace

ProcessResult CreateFatbin(const ProcessSpec& fatbinary, const std::string& bytes_path, FatbinLayout layout,
                           CommandRunner& runner, const FileSystem& fs) {
  std::vector<std::string> argv = BinaryFatbinCommand(fatbinary.argv, bytes_path);
  std::string fatbin_c = FlagValues(fatbinary.argv, {"--embedded-fatbin"}).front();
  ProcessSpec probe = fatbinary;
  probe.argv = LayoutProbeCommand(fatbinary.argv);
  probe.capture_output = true;  // what it says is no concern of the build's
  bool expected =
      runner.Run(probe).exit_code == 0 &&
      EmbeddingAssembly(fs.Read(ResolvePath(fatbinary.cwd, fatbin_c)).value_or(""), layout, bytes_path);
  if (!expected) argv.push_back(std::string(kEmbeddedFatbinFlag) + fatbin_c);  // EmbedFatbin says why
  ProcessSpec spec = fatbinary;
  spec.argv = std::move(argv);
  return runner.Run(spec);
}

ProcessResult StitchFatbin(const ProcessSpec& fatbinary, const std::vector<std::string>& images,
                           const std::optional<FatbinEmbedding>& embedding, CommandRunner& runner,
                           WritableFileSystem& fs) {
  std::string fatbin_c =
      ResolvePath(fatbinary.cwd, FlagValues(fatbinary.argv, {"--embedded-fatbin"}).front());
  ProcessSpec probe = fatbinary;
  probe.argv = LayoutProbeCommand(fatbinary.argv);
  ProcessResult result = runner.Run(probe);
  if (result.exit_code != 0) return result;
  std::string why;
  try {
    std::vector<std::string> parts;
    for (const std::string& image : images) {
      std::optional<std::string> part = fs.Read(ResolvePath(fatbinary.cwd, image));
      if (!part) throw FatbinError("cannot read " + image);
      parts.push_back(std::move(*part));
    }
    std::string bytes = JoinFatbins(parts);
    std::string text = fs.Read(fatbin_c).value_or("");
    if (embedding) {
      std::string bytes_path = ResolvePath(fatbinary.cwd, embedding->fatbin_bytes);
      fs.Write(bytes_path, bytes);
      // The layout alone, where it is the one the placeholder expects (CreateFatbin).
      if (EmbeddingAssembly(text, embedding->layout, bytes_path)) return result;
    }
    std::optional<std::string> whole = WithFatbinData(text, bytes);
    if (!whole) throw FatbinError(fatbin_c + " is not laid out as expected");
    fs.Write(fatbin_c, *whole);
    return result;
  } catch (const FatbinError& error) {
    why = error.what();
  }
  std::cerr << "fastcuda: cannot join the images' fatbins (" << why << "); running fatbinary whole\n";
  if (embedding) return CreateFatbin(fatbinary, embedding->fatbin_bytes, embedding->layout, runner, fs);
  return runner.Run(fatbinary);
}

ProcessResult EmbedFatbin(const ProcessSpec& host_compile, const FatbinEmbedding& embedding,
                          CommandRunner& runner, WritableFileSystem& fs) {
  std::string fatbin_c = ResolvePath(host_compile.cwd, embedding.fatbin_c);
  std::optional<std::string> assembly =
      EmbeddingAssembly(fs.Read(fatbin_c).value_or(""), embedding.layout,
                        ResolvePath(host_compile.cwd, embedding.fatbin_bytes));
  CommandChain chain(host_compile, runner);
  if (!assembly) {
    std::cerr << "fastcuda: " << fatbin_c << " is not laid out as FASTCUDA_EARLY_HOST expects; "
              << "compiling the host code again with it\n";
    std::vector<std::string> argv = host_compile.argv;
    argv.push_back("-D" + std::string(kRealFatbinMacro) + "=\"" + fatbin_c + "\"");
    chain.Run(argv);
    return chain.result();
  }
  const std::string& compiler = host_compile.argv.front();
  std::vector<std::string> objects = FlagValues(host_compile.argv, {"-o"});
  if (objects.size() != 1) throw std::invalid_argument("the host compile needs one -o");
  const std::string& object = objects.front();
  std::string data_source = ResolvePath(host_compile.cwd, embedding.early_object + ".data.s");
  std::string data_object = embedding.early_object + ".data.o";
  fs.Write(data_source, *assembly);
  std::vector<std::string> assemble = {compiler, "-c", "-x", "assembler", data_source, "-o", data_object};
  for (const std::string& word : host_compile.argv) {
    if (word == "-m64" || word == "-m32") assemble.push_back(word);  // the object's ELF class
  }
  chain.Run(assemble);
  chain.Run({compiler, "-r", "-nostdlib", "-o", object, embedding.early_object, data_object});
  chain.Run({"objcopy", "--localize-symbol=" + std::string(kFatbinDataSymbol), object});
  return chain.result();
}

}  // namespace fastcuda
