#include "command_line.h"

#include <algorithm>
#include <vector>

namespace amxqa::command_line {

App::App(const std::string& name) : CLI::App("", name) {
  option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  set_help_flag("-h,--help");
}

Parsed App::parse_args(int argc, char** argv, int first, std::string* error) {
  std::vector<std::string> args;
  bool only_positionals = false;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    only_positionals |= a == "--";
    // CLI11 2.1 reads `--name=` as `--name` and then takes the next argument as
    // its value; `--question=` means an empty value, so pass it as one.
    if (!only_positionals && a.size() > 3 && a.compare(0, 2, "--") == 0 && a.back() == '=' &&
        a.find('=') == a.size() - 1) {
      a.pop_back();
      args.push_back(a);
      args.emplace_back();
      continue;
    }
    args.push_back(a);
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  try {
    parse(args);
  } catch (const CLI::CallForHelp&) {
    return Parsed::kHelp;
  } catch (const CLI::ParseError& e) {
    *error = e.what();
    return Parsed::kError;
  }
  return Parsed::kRun;
}

}  // namespace amxqa::command_line
