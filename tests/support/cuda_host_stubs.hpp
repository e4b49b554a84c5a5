// Host stand-ins for what nvcc gives a .cu file, so that a host C++ compiler checks the syntax
// and types of a generated CUDA harness (tests/runner/hardware_test.cpp,
// CudaSource.HarnessCompilesAsHostCxxWithCudaStubbed) on a machine without a CUDA toolkit:
// the function and variable qualifiers, the built-in variables, the device functions and the
// runtime API the harness calls, and a stand-in for the kernel launch (the test rewrites
// `kernel<<<grid, block>>>(args)` as `hsalit_cuda_launch(kernel, grid, block)(args)`). It is
// force-included (`-include`) and compiled with -fsyntax-only: nothing here is defined or run,
// and the PTX of the inline assembly is checked by nvcc only (CudaBuild.MpCompilesForSm90).
#pragma once

#include <cstddef>

#define __CUDACC__ 1
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __forceinline__ inline

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
extern const dim3 threadIdx, blockIdx, blockDim, gridDim;
extern const int warpSize;

void __syncthreads();
void __syncwarp(unsigned mask = 0xffffffffu);
void __threadfence();
void __threadfence_block();
void __threadfence_system();
void __nanosleep(unsigned ns);
long long clock64();
int atomicAdd(int* address, int value);
unsigned atomicAdd(unsigned* address, unsigned value);
unsigned long long atomicAdd(unsigned long long* address, unsigned long long value);
int atomicExch(int* address, int value);
unsigned atomicExch(unsigned* address, unsigned value);
unsigned atomicAdd_system(unsigned* address, unsigned value);
int atomicCAS(int* address, int compare, int value);
unsigned atomicCAS(unsigned* address, unsigned compare, unsigned value);

enum cudaError_t { cudaSuccess = 0, cudaErrorNoDevice = 100 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
struct cudaDeviceProp {
  char name[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int multiProcessorCount;
  int maxThreadsPerMultiProcessor;
  int major, minor;
  int clockRate;
};
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* props, int device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaMalloc(void** pointer, std::size_t bytes);
cudaError_t cudaFree(void* pointer);
cudaError_t cudaMemcpy(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemset(void* pointer, int value, std::size_t bytes);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t error);
enum { cudaHostAllocDefault = 0, cudaHostAllocPortable = 1, cudaHostAllocMapped = 2 };
cudaError_t cudaHostAlloc(void** pointer, std::size_t bytes, unsigned flags);
cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned flags);
cudaError_t cudaFreeHost(void* pointer);

// `kernel<<<grid, block>>>(args)`, rewritten: the kernel itself, so that the call that follows
// checks the arguments against its parameters.
template <typename Kernel, typename Grid, typename Block>
Kernel* hsalit_cuda_launch(Kernel* kernel, Grid grid, Block block);
