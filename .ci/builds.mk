# CI's three builds after scripts/test.sh, under one make jobserver (.ci/run,
# docs/build.md §6): the CUDA units with the kernel-resources gate
# (build-cuda/), the sanitizer flavour (build-sanitize/) and the benchmarks
# (build/). Run as `make -f .ci/builds.mk -jN`: the sub-makes share N job slots,
# so one build's idle slots (nvcc's long single units, a link) go to another's
# compiles instead of two serial phases each leaving a core idle at its tail.
# Each build directory is configured by .ci/run beforehand; CUDA_TARGETS is
# empty on a machine without nvcc.
CUDA_TARGETS ?=
builds := sanitize benchmarks $(if $(strip $(CUDA_TARGETS)),cuda)

.PHONY: all $(builds)
all: $(builds)
cuda:
	+$(MAKE) -C build-cuda $(CUDA_TARGETS)
sanitize:
	+$(MAKE) -C build-sanitize all
benchmarks:
	+$(MAKE) -C build benchmarks
