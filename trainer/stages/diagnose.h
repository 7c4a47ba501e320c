// diagnose.h — `amxqa-train diagnose CKPT|MODEL`: the paper's four failures
// that the loss curve never showed, as measurements:
//   1. expert collapse — expert usage histogram + participation ratio per MoE
//      layer, PR of every RMSNorm gain vector, a warning under kCollapsePrShare;
//   2. expert insertion — function-preservation check ("no insertion
//      performed": this trainer never grows E);
//   3. routing statistic — window vs prefix mean as configured, the shuffle
//      ablation switch, and the validation loss with the statistic shuffled;
//   4. never-trained vocabulary rows — count and their logits versus trained
//      rows, and how often one wins the argmax.
// A checkpoint needs its recipe (--recipe, else recipe.recipe beside it) and
// the run's tokenizer.tok; a model file is read through the C API and its
// FlatBuffers tensors (norm gains are always f32).
#pragma once
#include <cstdio>
#include <string>

namespace amxqa::train {

void diagnose_checkpoint(const std::string& ckpt, const std::string& recipe_path, std::FILE* out);
void diagnose_model_file(const std::string& path, std::FILE* out);
// True when the file carries the .amxqa identifier.
bool is_model_file(const std::string& path);

}  // namespace amxqa::train
