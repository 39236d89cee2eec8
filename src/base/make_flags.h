// What a parent make asks of the commands it runs, through MAKEFLAGS.
#pragma once

#include <string_view>

namespace fastcuda {

/// True when MAKEFLAGS (`makeflags`) says that make keeps going after a
/// failed command (`make -k`): GNU make writes its one-letter flags as the
/// first word, without a dash (`k -j2 --jobserver-auth=3,4`; none: the
/// value starts with a space), older makes with one.
bool MakeKeepsGoing(std::string_view makeflags);

/// True when MAKEFLAGS (`makeflags`) lets make run other recipes beside
/// this one: `-jN` with N above 1, or `-j` without a limit.
bool MakeRunsRecipesAtOnce(std::string_view makeflags);

}  // namespace fastcuda
