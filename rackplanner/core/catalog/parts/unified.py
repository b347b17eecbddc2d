"""Unified-memory machines: a whole computer whose CPU and GPU share one memory pool.

Apple's Mac Studio and MacBook Pro (M-series Max/Ultra), Ryzen AI Max+ 395 ("Strix Halo") mini
PCs and NVIDIA's DGX Spark are bought as a box in one memory configuration: there is no slot
to fill and no VRAM to add. The capacity core runs on them as one device whose memory is what
the GPU may address and whose bandwidth is the package's.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from rackplanner.core.catalog.parts.base import Part


class UnifiedSystem(Part):
    kind: ClassVar[str] = "unified-system"

    form: Literal["desktop", "mini-pc", "laptop", "rack"]
    # The chip as its maker names it ("M3 Ultra", "Ryzen AI Max+ 395", "GB10").
    chip: str = Field(min_length=1, max_length=200)
    memory_gb: float = Field(gt=0, le=1e5)
    mem_type: str | None = None
    mem_bw_gbs: float = Field(gt=0, le=1e6)
    # The most memory the GPU may address, where the maker or OS documents a limit
    # (macOS wires about three quarters by default; Strix Halo firmware sets a carve-out).
    gpu_memory_gb: float | None = Field(default=None, gt=0, le=1e5)
    gpu_cores: int | None = Field(default=None, ge=1, le=100_000)
    # GPU dies that share the memory over a die-to-die link: 2 for Apple's Ultra chips (two
    # Max dies joined by UltraFusion). Decoding over both reaches a smaller share of their
    # summed bandwidth than one die does of its own, so they are calibrated apart.
    gpu_dies: int = Field(default=1, ge=1, le=16)
    # Dense FP16 (tensor/matrix where the GPU has them) and FP32 peaks of the GPU.
    gpu_fp16_tflops: float | None = Field(default=None, gt=0, le=1e6)
    gpu_fp32_tflops: float | None = Field(default=None, gt=0, le=1e6)
    # Dense FP4 peak where the maker gives one (DGX Spark's "1 PFLOP" is sparse FP4).
    gpu_fp4_tflops: float | None = Field(default=None, gt=0, le=1e6)
    cpu_cores: int = Field(ge=1, le=4096)
    # The most the whole box draws at the wall: the maker's measured maximum for this
    # configuration where one is published, else its power supply's rating (an upper bound);
    # the entry's notes say which.
    max_power_w: float | None = Field(default=None, gt=0, le=1e5)
    idle_power_w: float | None = Field(default=None, gt=0, le=1e5)
    height_u: int = Field(default=0, ge=0, le=100)
    width_mm: float | None = Field(default=None, gt=0, le=1e4)
    depth_mm: float | None = Field(default=None, gt=0, le=1e4)
    height_mm: float | None = Field(default=None, gt=0, le=1e4)
    weight_kg: float | None = Field(default=None, gt=0, le=1e4)

    @model_validator(mode="after")
    def _gpu_memory_in_pool(self) -> UnifiedSystem:
        if self.gpu_memory_gb is not None and self.gpu_memory_gb > self.memory_gb:
            raise ValueError(
                f"gpu_memory_gb {self.gpu_memory_gb:g} is more than the machine's memory_gb {self.memory_gb:g}"
            )
        return self
