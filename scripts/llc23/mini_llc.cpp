// A minimal llc: parse IR, verify, emit assembly/object for one target with LLVM's own codegen flags.
#include "llvm/CodeGen/CommandFlags.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/TargetParser/Host.h"
using namespace llvm;
#define DECL(T) extern "C" void LLVMInitialize##T##TargetInfo(); extern "C" void LLVMInitialize##T##Target(); extern "C" void LLVMInitialize##T##TargetMC(); extern "C" void LLVMInitialize##T##AsmPrinter();
DECL(NVPTX) DECL(AMDGPU) DECL(SPIRV) DECL(X86)
extern "C" void LLVMInitializeAMDGPUAsmParser(); extern "C" void LLVMInitializeX86AsmParser();
static codegen::RegisterCodeGenFlags CGF;
static cl::opt<std::string> InputFilename(cl::Positional, cl::desc("<input>"), cl::init("-"));
static cl::opt<std::string> OutputFilename("o", cl::desc("output"), cl::init("-"));
static cl::opt<std::string> TargetTripleOpt("mtriple", cl::desc("target triple"));
static cl::opt<unsigned> OptLevel("O", cl::Prefix, cl::init(2));
// Like llc: print every diagnostic and fail the run when one is an error.
namespace {
struct ErrorCountingHandler : DiagnosticHandler {
  bool *HadError;
  explicit ErrorCountingHandler(bool *E) : HadError(E) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() == DS_Error) *HadError = true;
    DiagnosticPrinterRawOStream DP(errs());
    errs() << (DI.getSeverity() == DS_Error ? "error: " : DI.getSeverity() == DS_Warning ? "warning: " : "note: ");
    DI.print(DP);
    errs() << "\n";
    return true;
  }
};
}
int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
#define INIT(T) LLVMInitialize##T##TargetInfo(); LLVMInitialize##T##Target(); LLVMInitialize##T##TargetMC(); LLVMInitialize##T##AsmPrinter();
  INIT(NVPTX) INIT(AMDGPU) INIT(SPIRV) INIT(X86)
  LLVMInitializeAMDGPUAsmParser(); LLVMInitializeX86AsmParser();
  cl::AddExtraVersionPrinter(TargetRegistry::printRegisteredTargetsForVersion);
  cl::ParseCommandLineOptions(argc, argv, "mini llc (LLVM 23 static SDK)\n");
  LLVMContext Ctx; SMDiagnostic Err;
  bool HadError = false;
  Ctx.setDiagnosticHandler(std::make_unique<ErrorCountingHandler>(&HadError));
  std::unique_ptr<Module> M = parseIRFile(InputFilename, Err, Ctx);
  if (!M) { Err.print(argv[0], errs()); return 1; }
  if (verifyModule(*M, &errs())) { errs() << "error: input module is broken\n"; return 1; }
  Triple TT = TargetTripleOpt.empty() ? M->getTargetTriple() : Triple(TargetTripleOpt);
  if (TT.getTriple().empty()) TT = Triple(sys::getDefaultTargetTriple());
  std::string Error;
  const Target *T = TargetRegistry::lookupTarget(codegen::getMArch(), TT, Error);
  if (!T) { errs() << argv[0] << ": " << Error << "\n"; return 1; }
  TargetOptions Opts = codegen::InitTargetOptionsFromCodeGenFlags(TT);
  CodeGenOptLevel OL = OptLevel == 0 ? CodeGenOptLevel::None : OptLevel == 1 ? CodeGenOptLevel::Less : OptLevel == 3 ? CodeGenOptLevel::Aggressive : CodeGenOptLevel::Default;
  std::unique_ptr<TargetMachine> TM(T->createTargetMachine(TT, codegen::getCPUStr(), codegen::getFeaturesStr(), Opts,
      codegen::getExplicitRelocModel(), codegen::getExplicitCodeModel(), OL));
  if (!TM) { errs() << "could not allocate target machine\n"; return 1; }
  M->setTargetTriple(TT);
  M->setDataLayout(TM->createDataLayout());
  std::error_code EC;
  ToolOutputFile Out(OutputFilename, EC, sys::fs::OF_None);
  if (EC) { errs() << EC.message() << "\n"; return 1; }
  legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, Out.os(), nullptr, codegen::getFileType())) {
    errs() << argv[0] << ": target does not support generation of this file type\n"; return 1;
  }
  PM.run(*M);
  if (HadError) return 1;
  Out.keep();
  return 0;
}
