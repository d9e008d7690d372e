package io.fastrmi.optrmi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OptimizationTest {

    @Test
    void eachHasItsOwnBitAndName() {
        Set<Integer> bits = new HashSet<>();
        Set<String> names = new HashSet<>();
        for (Optimization o : Optimization.values()) {
            bits.add(o.bit());
            names.add(o.configName());
            assertEquals(Optional.of(o), Optimization.named(o.configName()));
        }
        assertEquals(Optimization.values().length, bits.size(), "a bit used twice");
        assertEquals(Optimization.values().length, names.size(), "a name used twice");
        assertEquals(Optional.empty(), Optimization.named("zip"));
    }

    @Test
    void theHandshakesBitsAreFixed() {
        // Peers of other versions read these bits: they must never move.
        assertEquals(0x1, Optimization.bits(Set.of(Optimization.CLASS_TABLE)));
        assertEquals(0x2, Optimization.bits(Set.of(Optimization.NO_ANNOTATIONS)));
        assertEquals(0x10, Optimization.bits(Set.of(Optimization.BLOCK_DATA)), "version 2 of the lean format; bit 2 was version 1's");
        assertEquals(0x8, Optimization.bits(Set.of(Optimization.BULK_ARRAYS)));
    }

    @Test
    void bitsRoundTripAndUnknownBitsAreLeftOut() {
        for (int bits = 0; bits < 32; bits++) {
            assertEquals(bits & ~0x4, Optimization.bits(Optimization.fromBits(bits)), "bit 2 (lean format version 1) is no longer read");
        }
        assertEquals(EnumSet.of(Optimization.CLASS_TABLE), Optimization.fromBits(0x1 | 0x100 | 0x80000000));
    }

    @Test
    void namesComeInBitOrder() {
        assertEquals("class-table, bulk-arrays",
                Optimization.configNames(EnumSet.of(Optimization.BULK_ARRAYS, Optimization.CLASS_TABLE), ", "));
        assertEquals("", Optimization.configNames(Set.of(), ","));
    }
}
