# cast-gateway: A/B boot with attempt counting, for U-Boot's hush shell.
# deploy/image turns it into boot.scr (mkimage -T script) on the boot
# partition, where U-Boot's distro boot finds it: the Pi's rpi_arm64 build
# (Pi 3, 4, Zero 2 W) and qemu's qemu_arm64 run this same file. deploy/image
# fills in, from the board profile (boards/*.conf):
#   @BOOTARGS@        the board's kernel command line;
#   @LOAD_ADDRESSES@  setenv commands that place the kernel, its compressed
#                     copy and the initrd where they do not overlap
#                     (uboot-addresses);
#   @ENV_FILE@        no when U-Boot keeps its own environment in uboot.env on
#                     the boot partition (the Pi: saveenv writes it), yes when
#                     it keeps it where Linux cannot reach (qemu's flash): then
#                     this script keeps the A/B variables in uboot.env itself
#                     (env import/export -c, the format saveenv writes), so
#                     that Linux's fw_setenv finds them in the same file on
#                     every board (uboot-env).
#
# Partitions: 1 boot (FAT), 2 root slot A, 3 root slot B, 4 data.
# The environment holds, as RAUC's U-Boot backend writes them:
#   BOOT_ORDER   the slots, most wanted first ("A B"; an install puts the
#                new slot first)
#   BOOT_x_LEFT  attempts left for slot x (an install sets 3; committing the
#                slot, `rauc status mark-good`, sets it back to 3)
# Each boot takes one attempt from the first slot in BOOT_ORDER that has any
# left and saves that before the kernel starts, so a kernel that hangs or a
# system that never commits costs an attempt on every try. Once the new
# slot's attempts are used up the old one boots, with no help.

@LOAD_ADDRESSES@
setenv cg_env_file @ENV_FILE@
# cg_save: keeps the A/B variables where fw_setenv reads them.
if test "${cg_env_file}" = "yes"; then
    setenv cg_save 'env export -c -s 0x4000 ${kernel_comp_addr_r} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT && save ${devtype} ${devnum}:1 ${kernel_comp_addr_r} uboot.env 0x4000'
    if load ${devtype} ${devnum}:1 ${kernel_comp_addr_r} uboot.env; then
        env import -c ${kernel_comp_addr_r} 0x4000 BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
    fi
else
    setenv cg_save saveenv
fi

# No key press stops the boot: a terminal left on the serial console must
# not hold a room's box at a U-Boot prompt (from the next boot on: the first
# boot has U-Boot's default, 2 s).
if test "${bootdelay}" != "-2"; then
    setenv bootdelay -2
    saveenv
fi
test -n "${BOOT_ORDER}" || setenv BOOT_ORDER "A B"
test -n "${BOOT_A_LEFT}" || setenv BOOT_A_LEFT 3
test -n "${BOOT_B_LEFT}" || setenv BOOT_B_LEFT 3

setenv cg_slot
for slot in ${BOOT_ORDER}; do
    if test -n "${cg_slot}"; then
        true
    elif test "${slot}" = "A" && test ${BOOT_A_LEFT} -gt 0; then
        setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1
        setenv cg_slot A
        setenv cg_part 2
        setenv cg_left ${BOOT_A_LEFT}
    elif test "${slot}" = "B" && test ${BOOT_B_LEFT} -gt 0; then
        setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1
        setenv cg_slot B
        setenv cg_part 3
        setenv cg_left ${BOOT_B_LEFT}
    fi
done

if test -z "${cg_slot}"; then
    # Both slots failed three times (a power supply that browns out at boot
    # can do that to good slots): an appliance keeps trying.
    echo "cast-gateway: no slot has attempts left (BOOT_ORDER=${BOOT_ORDER}); giving each 3 more and restarting"
    setenv BOOT_A_LEFT 3
    setenv BOOT_B_LEFT 3
    run cg_save
    reset
fi
setenv slot
run cg_save
echo "cast-gateway: booting slot ${cg_slot} (partition ${cg_part}; attempts left after this one: ${cg_left})"

part uuid ${devtype} ${devnum}:${cg_part} cg_uuid
setenv bootargs "@BOOTARGS@ root=PARTUUID=${cg_uuid} rauc.slot=${cg_slot}"
echo "cast-gateway: bootargs ${bootargs}"
# The kernel goes where booti starts it: trixie's arm64 /vmlinuz is a plain
# Image. A gzip-compressed one would be unpacked there by booti, through
# kernel_comp_addr_r, given its size in kernel_comp_size.
# The device tree: the one the Pi firmware (or qemu) handed over.
test -n "${fdt_addr}" || setenv fdt_addr ${fdtcontroladdr}
if load ${devtype} ${devnum}:${cg_part} ${kernel_addr_r} /vmlinuz; then
    setenv kernel_comp_size ${filesize}
    if load ${devtype} ${devnum}:${cg_part} ${ramdisk_addr_r} /initrd.img; then
        booti ${kernel_addr_r} ${ramdisk_addr_r}:${filesize} ${fdt_addr}
    fi
fi
# Reaching here costs the slot this attempt, and the restart tries again.
echo "cast-gateway: slot ${cg_slot} did not start (no /vmlinuz or /initrd.img on partition ${cg_part}, or booti refused it); restarting"
reset
