#include "CGPIODShim.h"
#include <gpiod.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES  /* libgpiod 1.x: the macro exists only in its header */

struct cg_gpio_output { struct gpiod_line *line; };

static struct gpiod_line *find_by_label(const char *label, unsigned int offset) {
    struct gpiod_chip_iter *iter = gpiod_chip_iter_new();
    struct gpiod_chip *chip;
    if (!iter) return NULL;
    while ((chip = gpiod_chip_iter_next(iter)) != NULL) {
        if (strcmp(gpiod_chip_label(chip), label) == 0) {
            struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
            gpiod_chip_iter_free_noclose(iter);
            if (!line) gpiod_chip_close(chip);
            return line;
        }
    }
    gpiod_chip_iter_free(iter);
    return NULL;
}

cg_gpio_output *cg_gpio_request_output(const char *line_name, const char *chip_label, unsigned int offset,
                                       int active_low, const char *consumer, char *error, size_t error_size) {
    struct gpiod_line *line = line_name ? gpiod_line_find(line_name) : find_by_label(chip_label, offset);
    if (!line) {
        if (line_name) snprintf(error, error_size, "no GPIO line named %s", line_name);
        else snprintf(error, error_size, "no GPIO line %u on a chip labelled %s", offset, chip_label);
        return NULL;
    }
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    if (gpiod_line_request_output_flags(line, consumer, flags, 0) < 0) {
        snprintf(error, error_size, "cannot claim the GPIO line: %s", strerror(errno));
        gpiod_line_close_chip(line);
        return NULL;
    }
    cg_gpio_output *output = calloc(1, sizeof *output);
    if (!output) { gpiod_line_release(line); gpiod_line_close_chip(line); return NULL; }
    output->line = line;
    return output;
}

int cg_gpio_set_value(cg_gpio_output *output, int active) {
    return gpiod_line_set_value(output->line, active ? 1 : 0);
}

void cg_gpio_release(cg_gpio_output *output) {
    gpiod_line_release(output->line);
    gpiod_line_close_chip(output->line);
    free(output);
}

#else  /* libgpiod 2.x */

struct cg_gpio_output {
    struct gpiod_chip *chip;
    struct gpiod_line_request *request;
    unsigned int offset;
};

/* Opens the chip that has the line (by name, or by chip label); sets *offset. */
static struct gpiod_chip *find_chip(const char *line_name, const char *chip_label, unsigned int *offset) {
    DIR *dir = opendir("/dev");
    struct dirent *entry;
    if (!dir) return NULL;
    while ((entry = readdir(dir)) != NULL) {
        if (strncmp(entry->d_name, "gpiochip", 8) != 0) continue;
        char path[300];
        snprintf(path, sizeof path, "/dev/%s", entry->d_name);
        struct gpiod_chip *chip = gpiod_chip_open(path);
        if (!chip) continue;
        if (line_name) {
            int found = gpiod_chip_get_line_offset_from_name(chip, line_name);
            if (found >= 0) { *offset = (unsigned int)found; closedir(dir); return chip; }
        } else {
            struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
            int match = info && strcmp(gpiod_chip_info_get_label(info), chip_label) == 0;
            if (info) gpiod_chip_info_free(info);
            if (match) { closedir(dir); return chip; }
        }
        gpiod_chip_close(chip);
    }
    closedir(dir);
    return NULL;
}

cg_gpio_output *cg_gpio_request_output(const char *line_name, const char *chip_label, unsigned int offset,
                                       int active_low, const char *consumer, char *error, size_t error_size) {
    struct gpiod_chip *chip = find_chip(line_name, chip_label, &offset);
    if (!chip) {
        if (line_name) snprintf(error, error_size, "no GPIO line named %s", line_name);
        else snprintf(error, error_size, "no GPIO chip labelled %s", chip_label);
        return NULL;
    }
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_line_config *line_config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    struct gpiod_line_request *request = NULL;
    if (settings && line_config && request_config) {
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
        gpiod_line_settings_set_active_low(settings, active_low ? true : false);
        gpiod_line_settings_set_output_value(settings, GPIOD_LINE_VALUE_INACTIVE);
        gpiod_request_config_set_consumer(request_config, consumer);
        if (gpiod_line_config_add_line_settings(line_config, &offset, 1, settings) == 0)
            request = gpiod_chip_request_lines(chip, request_config, line_config);
    }
    if (!request) snprintf(error, error_size, "cannot claim the GPIO line: %s", strerror(errno));
    if (settings) gpiod_line_settings_free(settings);
    if (line_config) gpiod_line_config_free(line_config);
    if (request_config) gpiod_request_config_free(request_config);
    if (!request) { gpiod_chip_close(chip); return NULL; }
    cg_gpio_output *output = calloc(1, sizeof *output);
    if (!output) { gpiod_line_request_release(request); gpiod_chip_close(chip); return NULL; }
    output->chip = chip;
    output->request = request;
    output->offset = offset;
    return output;
}

int cg_gpio_set_value(cg_gpio_output *output, int active) {
    return gpiod_line_request_set_value(output->request, output->offset,
                                        active ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

void cg_gpio_release(cg_gpio_output *output) {
    gpiod_line_request_release(output->request);
    gpiod_chip_close(output->chip);
    free(output);
}

#endif
