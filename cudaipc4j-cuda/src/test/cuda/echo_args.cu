// A test kernel for kernel arguments of several sizes and alignments (KernelArgGpuTest), shipped as test PTX
// (org/cudaipc4j/cuda/echo_args.ptx). Rebuild it with scripts/build-ptx.sh after a change; a test checks it.

struct Triple {
    char c;
    double d;
    int i;
};

// Writes every parameter's value into out[0, 64): a at 0, b at 2, t.c at 8, t.d at 16, t.i at 24, v at 32, d at 48,
// e at 56. out must be 16-byte aligned.
extern "C" __global__ void echo_args(unsigned char* out, char a, short b, Triple t, float4 v, double d, long long e) {
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    out[0] = (unsigned char)a;
    *(short*)(out + 2) = b;
    out[8] = (unsigned char)t.c;
    *(double*)(out + 16) = t.d;
    *(int*)(out + 24) = t.i;
    *(float4*)(out + 32) = v;
    *(double*)(out + 48) = d;
    *(long long*)(out + 56) = e;
}
