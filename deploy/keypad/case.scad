// Traveller keypad case: a tray for the Raspberry Pi Pico and a press-fit lid holding a 16x2
// LCD module (80 x 36 mm board, 72 x 25 mm window, M3 holes 75 x 31 mm apart) above the 4x4
// membrane keypad (69 x 77 mm, stuck on the lid; its ribbon through the slot at the front).
// Print both parts in PLA, 0.2 mm layers, no supports:
//   openscad -o case.stl case.scad        (part = "both" lays them side by side)
part = "both";          // "tray", "lid" or "both"
inner = [90, 122, 32];  // inside of the tray: width, depth, height (mm)
wall = 2;
lid_t = 2;
lip = 4;                // the lid's lip reaching into the tray
fit = 0.3;              // clearance of the lip
lcd_window = [72, 25];
lcd_holes = [75, 31];
lcd_centre = [inner[0] / 2, inner[1] - 20];
keypad_slot = [22, 2.5];
keypad_slot_at = [inner[0] / 2, 6];
usb_hole = [12, 8];     // the micro-USB plug, in the left wall, low down where the Pico lies

module tray() {
    difference() {
        cube([inner[0] + 2 * wall, inner[1] + 2 * wall, inner[2] + wall]);
        translate([wall, wall, wall]) cube([inner[0], inner[1], inner[2] + 1]);
        translate([-1, wall + 30, wall + 3]) cube([wall + 2, usb_hole[0], usb_hole[1]]);
    }
}

module lid() {
    difference() {
        union() {
            cube([inner[0] + 2 * wall, inner[1] + 2 * wall, lid_t]);
            translate([wall + fit, wall + fit, lid_t])
                difference() {
                    cube([inner[0] - 2 * fit, inner[1] - 2 * fit, lip]);
                    translate([1.2, 1.2, -1]) cube([inner[0] - 2 * fit - 2.4, inner[1] - 2 * fit - 2.4, lip + 2]);
                }
        }
        translate([wall + lcd_centre[0] - lcd_window[0] / 2, wall + lcd_centre[1] - lcd_window[1] / 2, -1])
            cube([lcd_window[0], lcd_window[1], lid_t + 2]);
        for (dx = [-1, 1], dy = [-1, 1])
            translate([wall + lcd_centre[0] + dx * lcd_holes[0] / 2, wall + lcd_centre[1] + dy * lcd_holes[1] / 2, -1])
                cylinder(h = lid_t + 2, d = 3.2, $fn = 16);
        translate([wall + keypad_slot_at[0] - keypad_slot[0] / 2, wall + keypad_slot_at[1] - keypad_slot[1] / 2, -1])
            cube([keypad_slot[0], keypad_slot[1], lid_t + 2]);
    }
}

if (part == "tray" || part == "both") tray();
if (part == "lid") lid();
if (part == "both") translate([inner[0] + 2 * wall + 10, 0, 0]) lid();
