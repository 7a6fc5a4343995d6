# SPDX-License-Identifier: GPL-2.0-or-later
# guest-bench.sh - sourced by guest-init in bench mode: written later
