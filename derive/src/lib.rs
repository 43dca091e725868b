//! `#[derive(kiln::Schema)]`: the canonical Kiln schema of a type
//! (`spec/05-schema.md`), from the attributes serde itself reads.
//!
//! Use it through the `kiln` crate (`#[derive(kiln::Schema)]`, feature
//! `derive`, on by default), not on its own. The derive reads the type with
//! `serde_derive_internals`, the parser of serde's own derive, so a
//! `rename`, `rename_all`, `skip` or `transparent` means to the schema what
//! it means to serde; what a positional format cannot read back is refused
//! here, at compile time, with the attribute and the field named.
//!
//! One module per step: `kiln_attrs` reads `#[kiln(...)]`, `refuse`
//! turns away what cannot be read back, `bounds` adds `T: Schema`
//! where the type's parameters need it, and `expand` writes the impl.

use proc_macro::TokenStream;

mod bounds;
mod expand;
mod kiln_attrs;
mod refuse;

/// Derives `kiln::Schema`: see the `kiln` crate's documentation of the
/// trait and chapter 5 of the spec for what it writes.
#[proc_macro_derive(Schema, attributes(kiln))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
