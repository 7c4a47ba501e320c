// ask.cpp — the smallest amxqa.hpp program: one model, one session, answers.
// Built with -fno-exceptions to show the wrapper needs none.
//
//   amxqa-sample-cpp-ask MODEL PASSAGE_FILE QUESTION...
#include <amxqa.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s MODEL PASSAGE_FILE QUESTION...\n", argv[0]);
    return 2;
  }
  amxqa::Model model = amxqa::Model::open_file(argv[1]);
  if (!model.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", argv[1], model.status().name(), model.status().message.c_str());
    return 1;
  }
  std::ifstream in(argv[2], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[2]);
    return 1;
  }
  const std::string passage((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  amxqa::Session session = amxqa::Session::create(model);  // the one allocation of its memory
  if (!session.ok()) {
    std::fprintf(stderr, "session: %s\n", session.status().message.c_str());
    return 1;
  }
  amxqa::Answer a;  // reused across questions
  for (int i = 3; i < argc; ++i) {
    if (session.answer(argv[i], passage, &a) != AMXQA_OK) {
      std::fprintf(stderr, "%s: %s\n", a.status.name(), a.status.message.c_str());
      return 1;
    }
    std::printf("%s\t[%s, %.2f ms]\n", a.abstained ? "(no answer)" : a.text.c_str(), amxqa_isa_name(a.isa),
                a.prefill_ms + a.decode_ms);
  }
  return 0;
}
