#include "command_line.h"

#include <algorithm>
#include <cstdio>
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
    // Only for declared options: an extra (amxqa-bench passes them on) stays as given.
    if (!only_positionals && a.size() > 3 && a.compare(0, 2, "--") == 0 && a.back() == '=' &&
        a.find('=') == a.size() - 1 && get_option_no_throw(a.substr(0, a.size() - 1)) != nullptr) {
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

int App::parse_or_usage(int argc, char** argv, int first, const char* usage) {
  std::string error;
  switch (parse_args(argc, argv, first, &error)) {
    case Parsed::kHelp:
      std::fputs(usage, stdout);
      return 0;
    case Parsed::kError:
      std::fprintf(stderr, "%s: %s\n%s", get_name().c_str(), error.c_str(), usage);
      return 2;
    case Parsed::kRun:
      break;
  }
  return -1;
}

const CLI::Validator& App::non_negative_integer() {
  // CLI11's NonNegativeNumber would accept 1.5 and prints DBL_MAX in its message.
  static const CLI::Validator v(
      [](std::string& s) -> std::string {
        if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) return "";
        return "expects a non-negative integer, got '" + s + "'";
      },
      "UINT");
  return v;
}

}  // namespace amxqa::command_line
