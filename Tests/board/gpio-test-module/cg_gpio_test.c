// SPDX-License-Identifier: GPL-2.0
/*
 * cg_gpio_test: a test-only GPIO chip for the cast-gateway virtual board.
 * Debian's kernels build neither gpio-sim nor gpio-mockup, so this registers
 * an 8-line chip labelled "cast-gateway-test" with named lines CG_LED0..7.
 * The value and direction of every line can be read back from
 * /sys/module/cg_gpio_test/parameters/{values,directions} (1 = output high;
 * direction 0 = output, 1 = input), and how often each line's value has
 * changed from .../changes, so a test can tell a blinking LED from a steady
 * one by counting edges instead of sampling (a 100 ms pulse slips between
 * the samples of a slow, emulated shell).
 */
#include <linux/gpio/driver.h>
#include <linux/module.h>

#define LINES 8
static int values[LINES];
static int directions[LINES] = {1, 1, 1, 1, 1, 1, 1, 1};
static int changes[LINES];
static int count = LINES;
module_param_array(values, int, &count, 0444);
module_param_array(directions, int, &count, 0444);
module_param_array(changes, int, &count, 0444);

static const char *const names[LINES] = {
    "CG_LED0", "CG_LED1", "CG_LED2", "CG_LED3", "CG_LED4", "CG_LED5", "CG_LED6", "CG_LED7",
};

static void cg_store(unsigned int offset, int value)
{
    if (values[offset] != !!value)
        changes[offset]++;
    values[offset] = !!value;
}

static int cg_get_direction(struct gpio_chip *chip, unsigned int offset) { return directions[offset]; }
static int cg_direction_input(struct gpio_chip *chip, unsigned int offset) { directions[offset] = 1; return 0; }
static int cg_direction_output(struct gpio_chip *chip, unsigned int offset, int value)
{
    directions[offset] = 0;
    cg_store(offset, value);
    return 0;
}
static int cg_get(struct gpio_chip *chip, unsigned int offset) { return values[offset]; }
static void cg_set(struct gpio_chip *chip, unsigned int offset, int value) { cg_store(offset, value); }

static struct gpio_chip chip = {
    .label = "cast-gateway-test",
    .owner = THIS_MODULE,
    .base = -1,
    .ngpio = LINES,
    .names = names,
    .get_direction = cg_get_direction,
    .direction_input = cg_direction_input,
    .direction_output = cg_direction_output,
    .get = cg_get,
    .set = cg_set,
};

static int __init cg_init(void) { return gpiochip_add_data(&chip, NULL); }
static void __exit cg_exit(void) { gpiochip_remove(&chip); }
module_init(cg_init);
module_exit(cg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("cast-gateway test-only GPIO chip");
