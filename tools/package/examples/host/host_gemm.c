/* host_gemm.c — a host program on teplug's C API (libteplug.so,
 * <teplug/teplug_kernel.h>), built from the installed kit.
 *
 *   host_gemm PLUGIN.so
 *
 * Creates a kernel that loads only PLUGIN.so (no built-in providers, no
 * environment), dispatches one fp32 GEMM with a bias through the kernel's IGemm
 * dispatching object, and checks every element of the result. Prints the
 * result and the decision record (which implementation served the call) on
 * stdout. Exit status 0 when the result is right, 1 with the reason on stderr
 * otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "teplug/teplug_kernel.h"

/* A row-major fp32 host matrix over `data`. */
static TeplugTensor matrix(float* data, int32_t rank, int64_t rows, int64_t cols) {
  TeplugTensor t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.data = data;
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = rank;
  t.shape[0] = rows;
  t.shape[1] = cols;
  return t;
}

/* Prints `what` failed with the error's code and message, destroys the error. */
static int report(const char* what, TeplugError* error) {
  fprintf(stderr, "host_gemm: %s failed: %s: %s\n", what, teplug_code_name(error->code),
          error->message != NULL ? error->message : "(no message)");
  error->destroy(error);
  return 1;
}

/* Prints the kernel's load report (which plugins loaded or were refused, and why). */
static void print_load_report(TeplugKernel* kernel) {
  char buffer[4096];
  size_t length = 0;
  TeplugError* error = teplug_kernel_load_report(kernel, buffer, sizeof buffer, &length);
  if (error != NULL) {
    report("teplug_kernel_load_report", error);
    return;
  }
  fprintf(stderr, "%s\n", buffer);
}

/* D = A B + bias with A = [[1,2,3],[4,5,6]], B = [[1,2],[3,4],[5,6]], bias = [0.5, -1]. */
static int run_gemm(TeplugKernel* kernel) {
  float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 2, 3, 4, 5, 6}, bias[2] = {0.5f, -1.0f};
  float d[4] = {0, 0, 0, 0};
  const float expected[4] = {22.5f, 27.0f, 49.5f, 63.0f};
  TeplugTensor ta = matrix(a, 2, 2, 3), tb = matrix(b, 2, 3, 2), td = matrix(d, 2, 2, 2);
  TeplugTensor tbias = matrix(bias, 1, 2, 0);
  TeplugGemmArgs args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.a = &ta;
  args.b = &tb;
  args.d = &td;
  args.bias = &tbias;
  args.alpha = 1.0f;

  const TeplugIID iid = TEPLUG_IID_GEMM_V1_INIT;
  TeplugGemmV1* gemm = (TeplugGemmV1*)teplug_kernel_query_interface(kernel, &iid);
  if (gemm == NULL) {
    fprintf(stderr, "host_gemm: the kernel serves no IGemm/1\n");
    return 1;
  }
  TeplugError* error = gemm->vtbl->gemm(gemm, &args);
  gemm->vtbl->base.release((TeplugObject*)gemm);
  if (error != NULL) return report("gemm", error);

  printf("gemm: %g %g %g %g\n", d[0], d[1], d[2], d[3]);
  for (int i = 0; i < 4; ++i) {
    if (d[i] != expected[i]) {
      fprintf(stderr, "host_gemm: d[%d] = %g, want %g\n", i, d[i], expected[i]);
      return 1;
    }
  }

  char record[4096];
  size_t length = 0;
  error = teplug_kernel_explain(kernel, &iid, TEPLUG_OP_GEMM, &args, NULL, record, sizeof record, &length);
  if (error != NULL) return report("teplug_kernel_explain", error);
  printf("%s\n", record);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: host_gemm PLUGIN.so\n");
    return 2;
  }
  const char* plugins[1] = {argv[1]};
  TeplugKernelOptions options;
  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  options.config_text = "log_level: \"warn\"\n";
  options.plugin_paths = plugins;
  options.num_plugin_paths = 1;
  options.ignore_environment = 1;
  options.no_builtins = 1;

  TeplugKernel* kernel = NULL;
  TeplugError* error = teplug_kernel_create(&options, &kernel);
  if (error != NULL) return report("teplug_kernel_create", error);
  const int status = run_gemm(kernel);
  if (status != 0) print_load_report(kernel);
  teplug_kernel_destroy(kernel);
  return status;
}
