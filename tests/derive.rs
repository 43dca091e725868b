//! The derive's refusals at compile time: each file of `tests/derive_fail`
//! must fail to build with the message in its `.stderr` file, which names
//! the attribute and the field.

#[test]
fn refusals() {
    trybuild::TestCases::new().compile_fail("tests/derive_fail/*.rs");
}
