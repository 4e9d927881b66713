use tool_sdk::tool;

/// Reads a byte.
#[tool]
unsafe fn read_byte(address: usize) -> u8 {
    unsafe { *(address as *const u8) }
}

fn main() {}
