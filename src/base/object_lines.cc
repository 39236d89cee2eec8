#include "src/base/object_lines.h"

#include <filesystem>
#include <optional>

#include "src/base/ninja_status.h"

namespace fastcuda {
namespace {

constexpr std::string_view kObjectLineStart = "Building CUDA object ";

}  // namespace

std::string ObjectLine(const std::string& object, const std::string& top) {
  const std::filesystem::path relative =
      std::filesystem::path(object).lexically_normal().lexically_relative(std::filesystem::path(top));
  const bool under = !relative.empty() && *relative.begin() != "..";
  return std::string(kObjectLineStart) + (under ? relative.string() : object);
}

std::string ObjectLineFilter::Shown(std::string_view line) {
  if (std::optional<NinjaStatusLine> status = ParseNinjaStatusLine(line)) {
    const bool object = status->description.starts_with(kObjectLineStart);
    unshown_step_ = object ? "" : status->description;
    return object ? status->description + "\n" : "";
  }
  if (line.starts_with("ninja: ")) return "";
  std::string shown = unshown_step_.empty() ? "" : unshown_step_ + "\n";
  unshown_step_.clear();
  return shown + std::string(line) + "\n";
}

std::string ObjectLineFilter::Read(std::string_view text) {
  partial_line_.append(text);
  std::string shown;
  size_t start = 0;
  for (size_t end; (end = partial_line_.find('\n', start)) != std::string::npos; start = end + 1) {
    shown += Shown(std::string_view(partial_line_).substr(start, end - start));
  }
  partial_line_.erase(0, start);
  return shown;
}

std::string ObjectLineFilter::Finish() {
  if (partial_line_.empty()) return "";
  std::string last = Shown(partial_line_);
  if (!last.empty()) last.pop_back();  // it had no newline
  partial_line_.clear();
  return last;
}

}  // namespace fastcuda
