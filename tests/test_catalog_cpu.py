"""CPU and memory catalog entries: every one loads and is sourced, and the figures agree with each other.

The consistency checks are meant to catch typos: a thread count that is neither the core count nor
twice it, a base clock above the boost clock, channels x MT/s x 8 B that disagrees with the vendor's
own per-socket bandwidth, a lane count or memory layout that does not belong to the socket.
"""

from __future__ import annotations

import pytest

from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR, Catalog, load_catalog_file
from rackplanner.core.catalog.parts import Cpu, Memory

CPU_FILE = BUILTIN_CATALOG_DIR / "cpu.yaml"
MEMORY_FILE = BUILTIN_CATALOG_DIR / "memory.yaml"


def _cpus() -> list[Cpu]:
    cpus = [part for _, part in load_catalog_file(CPU_FILE, "cpu")]
    assert all(isinstance(cpu, Cpu) for cpu in cpus)
    return [cpu for cpu in cpus if isinstance(cpu, Cpu)]


def _memory() -> list[Memory]:
    modules = [part for _, part in load_catalog_file(MEMORY_FILE, "memory")]
    return [module for module in modules if isinstance(module, Memory)]


CPUS = _cpus()
CPU_IDS = [cpu.id for cpu in CPUS]


def _cpu(catalog: Catalog, part_id: str) -> Cpu:
    cpu = catalog.get_as(part_id, Cpu)
    assert cpu is not None, part_id
    return cpu


def test_the_requested_families_are_in_the_catalog() -> None:
    ids = set(CPU_IDS)
    # The ids that existed before this catalog grew must keep working for saved plans.
    assert {
        "ryzen-9-7950x",
        "ryzen-7-7800x3d",
        "core-i9-14900k",
        "core-i5-14600k",
        "xeon-platinum-8280",
        "apple-m1-ultra",
        "xeon-e5-2680-v4",
        "xeon-e5-2690-v4",
        "xeon-e5-2680-v2",
        "epyc-7742",
    } <= ids
    assert {
        "ryzen-9-9950x",
        "ryzen-9-9900x",
        "ryzen-7-9800x3d",
        "threadripper-pro-5995wx",
        "epyc-7542",
        "epyc-7302",
        "epyc-7763",
        "epyc-7543",
        "epyc-7313",
        "epyc-9654",
        "epyc-9554",
        "epyc-9354",
        "epyc-9965",
        "epyc-9755",
        "epyc-9575f",
        "xeon-platinum-8180",
        "xeon-platinum-8168",
        "xeon-gold-6148",
        "xeon-gold-6248r",
        "xeon-platinum-8380",
        "xeon-gold-6338",
        "xeon-platinum-8480-plus",
        "xeon-gold-6448y",
        "xeon-platinum-8592-plus",
        "core-i9-13900k",
    } <= ids
    assert {
        "threadripper-7960x",
        "threadripper-7970x",
        "threadripper-7980x",
        "threadripper-pro-7975wx",
        "threadripper-pro-7985wx",
        "threadripper-pro-7995wx",
    } <= ids


@pytest.mark.parametrize("cpu", CPUS, ids=CPU_IDS)
def test_every_cpu_is_sourced(cpu: Cpu) -> None:
    assert cpu.source, f"{cpu.id} has no source"
    # Each source is something a user can open: a web address or a reference document by name.
    for source in cpu.source:
        assert source.startswith(("http://", "https://", "seed ")), f"{cpu.id}: {source!r}"
    if cpu.price_usd is not None:
        assert cpu.price_date is not None


@pytest.mark.parametrize("cpu", CPUS, ids=CPU_IDS)
def test_threads_and_clocks_are_consistent(cpu: Cpu) -> None:
    # With or without SMT there is one or two threads per core; Intel's hybrid parts have
    # SMT on the P-cores only, so their count lies in between (14900K: 8P x 2 + 16E = 32).
    assert cpu.cores <= cpu.threads <= 2 * cpu.cores, cpu.id
    if cpu.vendor == "AMD" or "Xeon" in cpu.model:
        assert cpu.threads in (cpu.cores, 2 * cpu.cores), cpu.id
    if cpu.base_clock_ghz is not None and cpu.boost_clock_ghz is not None:
        assert cpu.base_clock_ghz <= cpu.boost_clock_ghz, cpu.id
    for clock in (cpu.base_clock_ghz, cpu.boost_clock_ghz):
        assert clock is None or 1.0 <= clock <= 6.5, cpu.id
    assert 15 <= cpu.tdp_w <= 600, cpu.id


@pytest.mark.parametrize("cpu", [c for c in CPUS if c.stated_mem_bw_gbs is not None], ids=lambda c: c.id)
def test_stated_bandwidth_matches_channels_times_speed(cpu: Cpu) -> None:
    # Within 1 %: the vendors round (Emerald Rapids' 358 GB/s is 8 x 5600 MT/s x 8 B = 358.4).
    assert cpu.stated_mem_bw_gbs is not None
    assert cpu.theoretical_mem_bw_gbs == pytest.approx(cpu.stated_mem_bw_gbs, rel=0.01), cpu.id


# Memory layout per socket. Sources: AMD's specification table (SP3: 8 x DDR4, SP5: 12 x DDR5,
# AM5: 2 x DDR5), the Intel ARK export (LGA3647: 6 x DDR4, LGA4189: 8 x DDR4, LGA4677: 8 x DDR5),
# the Xeon E5 platform descriptions (LGA2011 and LGA2011-3: 4 channels; DDR3 on Ivy Bridge-EP).
SOCKET_MEMORY = {
    "SP3": ("DDR4", 8),
    "SP5": ("DDR5", 12),
    "sWRX8": ("DDR4", 8),
    "AM5": ("DDR5", 2),
    "LGA1700": ("DDR5", 2),
    "LGA2011": ("DDR3", 4),
    "LGA2011-3": ("DDR4", 4),
    "LGA3647": ("DDR4", 6),
    "LGA4189": ("DDR4", 8),
    # Xeon 6 (ARK export, Hardwareluxx, Cnews): 6900P on LGA7529 with 12 x DDR5 and 96 lanes,
    # 6700P on LGA4710 with 8 x DDR5 and 88 lanes; Core Ultra 200S on LGA1851: 2 x DDR5, 20 lanes.
    "LGA7529": ("DDR5", 12),
    "LGA4710": ("DDR5", 8),
    "LGA1851": ("DDR5", 2),
}

# CPU PCIe lanes per socket and generation. EPYC: x128 in every row of AMD's table; Xeon:
# x48 (Skylake/Cascade Lake), x64 (Ice Lake), x80 (Sapphire/Emerald Rapids) in the ARK export;
# E5-2600: 40 lanes; AM5 and LGA1700: the usable CPU lanes of the 7950X and 14900K reviews.
SOCKET_PCIE = {
    "SP3": (4, 128),
    "SP5": (5, 128),
    "sWRX8": (4, 128),
    "AM5": (5, 24),
    "LGA1700": (5, 20),
    "LGA2011": (3, 40),
    "LGA2011-3": (3, 40),
    "LGA3647": (3, 48),
    "LGA4189": (4, 64),
    "LGA7529": (5, 96),
    "LGA4710": (5, 88),
    "LGA1851": (5, 20),
}


# Sockets whose layout depends on the board platform. sTR5 takes Threadripper 7000 on TRX50
# (four DDR5 channels per AMD's 7980X page; three PCIe 5.0 x16 links from the package, ASCII)
# and Threadripper PRO 7000 WX on WRX90 (eight channels per AMD's 7985WX page; 128 PCIe 5.0
# lanes, probsee). The catalog lists PRO parts with their WRX90 figures.
PLATFORM_SOCKET_LAYOUT = {
    ("sTR5", "hedt"): (("DDR5", 4), (5, 48)),
    ("sTR5", "workstation"): (("DDR5", 8), (5, 128)),
    # LGA4677 takes Xeon Scalable 4th/5th gen on servers (ARK: 8 x DDR5, 80 lanes) and Xeon W-3400
    # on W790 workstations (ARK export for the w9-3495X: 8 channels, 112 lanes).
    ("LGA4677", "server"): (("DDR5", 8), (5, 80)),
    ("LGA4677", "workstation"): (("DDR5", 8), (5, 112)),
}


@pytest.mark.parametrize("cpu", [c for c in CPUS if c.socket in SOCKET_MEMORY], ids=lambda c: c.id)
def test_memory_and_pcie_belong_to_the_socket(cpu: Cpu) -> None:
    assert (cpu.mem_type, cpu.mem_channels) == SOCKET_MEMORY[cpu.socket], cpu.id
    assert (cpu.pcie_gen, cpu.pcie_lanes) == SOCKET_PCIE[cpu.socket], cpu.id


@pytest.mark.parametrize(
    "cpu", [c for c in CPUS if (c.socket, c.platform) in PLATFORM_SOCKET_LAYOUT], ids=lambda c: c.id
)
def test_memory_and_pcie_belong_to_the_socket_and_platform(cpu: Cpu) -> None:
    memory, pcie = PLATFORM_SOCKET_LAYOUT[(cpu.socket, cpu.platform)]
    assert (cpu.mem_type, cpu.mem_channels) == memory, cpu.id
    assert (cpu.pcie_gen, cpu.pcie_lanes) == pcie, cpu.id


def test_every_catalog_socket_is_checked() -> None:
    checked = set(SOCKET_MEMORY) | {socket for socket, _ in PLATFORM_SOCKET_LAYOUT}
    sockets = {cpu.socket for cpu in CPUS if cpu.platform != "soc"}
    assert sockets <= checked, sockets - checked
    for cpu in CPUS:
        if cpu.socket in {socket for socket, _ in PLATFORM_SOCKET_LAYOUT}:
            assert (cpu.socket, cpu.platform) in PLATFORM_SOCKET_LAYOUT, cpu.id


@pytest.mark.parametrize("cpu", CPUS, ids=CPU_IDS)
def test_multi_socket_parts_name_their_links(cpu: Cpu) -> None:
    if cpu.max_sockets == 1:
        assert cpu.inter_socket_link is None and cpu.pcie_lanes_2p is None, cpu.id
        return
    assert cpu.inter_socket_link is not None, cpu.id
    if cpu.inter_socket_link == "UPI":
        # Intel ARK: 2-4 UPI links at 10.4 (Skylake/Cascade Lake), 11.2 (Ice Lake),
        # 16 (Sapphire Rapids) or 20 GT/s (Emerald Rapids); Xeon 6 has UPI 2.0 at 24 GT/s,
        # six links on the 6900P and four on the 6700P (ARK export rows).
        assert cpu.inter_socket_links in (2, 3, 4, 6), cpu.id
        assert cpu.inter_socket_gts in (None, 10.4, 11.2, 16, 20, 24), cpu.id
    if cpu.inter_socket_link == "QPI":
        assert cpu.inter_socket_links == 2, cpu.id  # the E5-2600 block diagram (istorya.net)
    if cpu.pcie_lanes_2p is not None:
        # A two-socket EPYC system spends part of each socket's 128 lanes on the socket links:
        # 128 or 160 lanes are left for devices (160 for Genoa, atizone).
        assert cpu.pcie_lanes_2p in (128, 160), cpu.id
        assert cpu.pcie_lanes_2p <= 2 * cpu.pcie_lanes


@pytest.mark.parametrize("cpu", CPUS, ids=CPU_IDS)
def test_vector_extensions_follow_the_architecture(cpu: Cpu) -> None:
    # AMX arrived with 4th-gen Xeon Scalable (Sapphire Rapids, LGA4677) and sits on AVX-512;
    # Xeon 6's P-core parts keep it (LGA7529, LGA4710; the catalog holds no E-core Xeon 6).
    assert cpu.amx == (cpu.socket in ("LGA4677", "LGA7529", "LGA4710")), cpu.id
    if cpu.amx:
        assert cpu.avx512, cpu.id
    if cpu.vendor == "AMD":
        # Zen 4 is AMD's first core with AVX-512: AM5, SP5 and sTR5 parts have it, SP3 and sWRX8
        # parts not (cputronic lists AVX-512 for the Zen 4 Threadripper 7960X).
        assert cpu.avx512 == (cpu.socket in ("AM5", "SP5", "sTR5")), cpu.id
    if cpu.socket in ("LGA3647", "LGA4189", "LGA4677"):
        assert cpu.avx512, cpu.id  # every Xeon Scalable generation
    if cpu.socket in ("LGA2011", "LGA2011-3", "LGA1700"):
        assert not cpu.avx512, cpu.id


def test_epyc_9654_known_answer(catalog: Catalog) -> None:
    cpu = _cpu(catalog, "epyc-9654")
    # AMD's specification table: 96 cores / 192 threads, 12 channels of DDR5 up to 4800 MHz,
    # "Per Socket Mem BW 460.80 GB/s", PCIe 5.0 x128, 360 W, 1kU price 11,805 USD.
    assert (cpu.cores, cpu.threads, cpu.mem_channels, cpu.mem_speed_mts) == (96, 192, 12, 4800)
    assert cpu.theoretical_mem_bw_gbs == pytest.approx(460.8)
    assert cpu.stated_mem_bw_gbs == pytest.approx(460.8)
    assert (cpu.pcie_gen, cpu.pcie_lanes, cpu.tdp_w, cpu.price_usd) == (5, 128, 360, 11805)


def test_epyc_7763_known_answer(catalog: Catalog) -> None:
    cpu = _cpu(catalog, "epyc-7763")
    # AMD's specification table: 64 cores, 2.45 / 3.5 GHz, 8 x DDR4-3200 = 204.80 GB/s, 280 W.
    assert (cpu.cores, cpu.base_clock_ghz, cpu.boost_clock_ghz, cpu.tdp_w) == (64, 2.45, 3.5, 280)
    assert cpu.theoretical_mem_bw_gbs == pytest.approx(204.8)


def test_xeon_8480_plus_known_answer(catalog: Catalog) -> None:
    cpu = _cpu(catalog, "xeon-platinum-8480-plus")
    # Intel ARK export: 56 cores, DDR5-4800 x 8, PCIe 5.0 x80, 4 UPI links at 16 GT/s, 350 W.
    assert cpu.theoretical_mem_bw_gbs == pytest.approx(307.2)
    assert (cpu.cores, cpu.pcie_lanes, cpu.inter_socket_links, cpu.inter_socket_gts) == (56, 80, 4, 16)
    assert cpu.amx and cpu.avx512


def test_threadripper_7000_known_answers(catalog: Catalog) -> None:
    # ASCII's table: 7980X 3.2 / 5.1 GHz at $4,999; muycomputer: 64 cores / 128 threads; AMD's
    # 7980X page: 4 channels of DDR5 up to 5200 MT/s = 166.4 GB/s.
    tr = _cpu(catalog, "threadripper-7980x")
    assert (tr.cores, tr.threads, tr.base_clock_ghz, tr.boost_clock_ghz, tr.price_usd) == (64, 128, 3.2, 5.1, 4999)
    assert tr.theoretical_mem_bw_gbs == pytest.approx(166.4)
    # The PRO part on WRX90 has twice the channels (AMD's 7985WX page) and 128 PCIe 5.0 lanes.
    pro = _cpu(catalog, "threadripper-pro-7995wx")
    assert (pro.cores, pro.threads, pro.l3_cache_mb, pro.pcie_lanes) == (96, 192, 384, 128)
    assert pro.theoretical_mem_bw_gbs == pytest.approx(2 * tr.theoretical_mem_bw_gbs)


def test_two_socket_bandwidth_doubles(catalog: Catalog) -> None:
    # A dual EPYC 9654 system: two sockets of 12 x DDR5-4800 each, 921.6 GB/s in total.
    cpu = _cpu(catalog, "epyc-9654")
    assert cpu.max_sockets == 2
    assert cpu.max_sockets * cpu.theoretical_mem_bw_gbs == pytest.approx(921.6)


# --- memory modules -----------------------------------------------------------------------

# Speed range per generation: DDR4 2133-4800 MT/s and DDR5 3200-12600 MT/s as the scrooge.eu
# listings put it (overclocking kits included). A DDR3 module needs its range added here first.
SPEED_RANGE = {"DDR4": (2133, 4800), "DDR5": (3200, 12600)}

MEMORY = _memory()


@pytest.mark.parametrize("module", MEMORY, ids=[m.id for m in MEMORY])
def test_memory_speed_matches_its_type(module: Memory) -> None:
    assert module.mem_type in SPEED_RANGE, f"{module.id}: no speed range for {module.mem_type}"
    low, high = SPEED_RANGE[module.mem_type]
    assert low <= module.speed_mts <= high, module.id
    assert module.source, module.id
    if module.module_type in ("rdimm", "lrdimm"):
        assert module.ecc, f"{module.id}: registered server modules carry ECC"


def test_memory_covers_the_server_platforms() -> None:
    have = {(m.mem_type, m.module_type, int(m.capacity_gb), m.speed_mts) for m in MEMORY}
    # DDR4-3200 RDIMMs for EPYC 7002/7003 and Ice Lake, DDR5 RDIMMs for Genoa and Sapphire Rapids.
    assert {("DDR4", "rdimm", 32, 3200), ("DDR4", "rdimm", 64, 3200)} <= have
    assert {("DDR5", "rdimm", 32, 4800), ("DDR5", "rdimm", 64, 4800), ("DDR5", "rdimm", 96, 5600)} <= have
    assert ("DDR4", "udimm", 16, 3200) in have
