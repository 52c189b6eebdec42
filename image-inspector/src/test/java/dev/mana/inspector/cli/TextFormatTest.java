package dev.mana.inspector.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The text helpers the views share: the columns of map, dir and diff depend on these exact forms. */
class TextFormatTest {
    @Test
    void humanSizesUseBinaryUnitsWithOneDecimal() {
        assertEquals("0 B", TextFormat.human(0));
        assertEquals("1023 B", TextFormat.human(1023));
        assertEquals("1.0 KiB", TextFormat.human(1024));
        assertEquals("1.5 MiB", TextFormat.human(3L << 19));
        assertEquals("8.0 EiB", TextFormat.human(Long.MAX_VALUE));
    }

    @Test
    void shortSizesFitASevenCharacterColumn() {
        assertEquals("0", TextFormat.shortSize(0));
        assertEquals("1023", TextFormat.shortSize(1023));
        assertEquals("1.5K", TextFormat.shortSize(1536));
        assertEquals("32K", TextFormat.shortSize(32768));
        assertEquals("256M", TextFormat.shortSize(256L << 20));
    }

    @Test
    void hexAndTime() {
        assertEquals("0x555555600000", TextFormat.hex(0x555555600000L));
        assertEquals("0xffffffffffffffff", TextFormat.hex(-1));
        assertEquals("", TextFormat.time(0), "no time recorded");
        assertEquals("2025-11-24T16:00:00.123456789Z", TextFormat.time(1_764_000_000_123_456_789L));
    }

    @Test
    void numbersAreHexWith0xElseDecimal() {
        assertEquals(0x555555600000L, NumberArgument.number("0x5555_5560_0000", "ADDR"));
        assertEquals(4096, NumberArgument.number(" 4096 ", "LEN"));
        assertEquals(-1L, NumberArgument.number("0xffffffffffffffff", "ADDR"));
        CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
                () -> NumberArgument.number("ff", "LEN"));
        assertEquals("LEN: 'ff' is not a number (use 0x... for hex)", e.getMessage());
    }
}
