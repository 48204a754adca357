/* What llc's x86-64 code may call that an older libgcc lacks. */
#ifndef ATOMIR_CPU_RUNTIME_H
#define ATOMIR_CPU_RUNTIME_H

#include <stdint.h>
#include <string.h>

/* llc calls __truncsfbf2 to round a float to bfloat; libgcc has it only from GCC 13 on. Weak, so
 * a libgcc that has it is just as good. Round to nearest even; NaNs stay NaN (quieted). */
__attribute__((weak)) _Float16 __truncsfbf2(float value) {
    uint32_t bits;
    memcpy(&bits, &value, 4);
    uint16_t rounded = (bits & 0x7FFFFFFF) > 0x7F800000
                           ? (uint16_t)((bits >> 16) | 0x40)
                           : (uint16_t)((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
    _Float16 result;
    memcpy(&result, &rounded, 2);
    return result;
}

#endif
