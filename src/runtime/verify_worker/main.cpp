// pt2ov-verify-worker: the child process of --verify (runtime/verify.h). A plugin fault that
// kills it is a finding of the verification, not the end of the user's process.
#include "runtime/verify.h"

int main(int argc, char** argv) { return pt2ov::runtime::verify_worker_main(argc, argv); }
