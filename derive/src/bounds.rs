//! The where clause of the impl: `T: Schema` for each type parameter that
//! a described field's type mentions, or the user's `#[kiln(bound)]`.
//!
//! A parameter used only in skipped fields or under an override needs no
//! bound, as with serde's own inference; `PhantomData<T>` has a schema for
//! every `T`, so the bound it gets is always met when `T` has one.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Generics, Ident, Type, WherePredicate};

/// Whether `tokens` mention `ident` anywhere, groups included.
pub fn mentions(tokens: TokenStream, ident: &Ident) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(i) => &i == ident,
        TokenTree::Group(g) => mentions(g.stream(), ident),
        _ => false,
    })
}

/// The generics of the impl, with the bounds added.
pub fn with_bounds(
    generics: &Generics,
    described: &[&Type],
    explicit: Option<&[WherePredicate]>,
    krate: &syn::Path,
) -> Generics {
    let mut generics = generics.clone();
    let predicates: Vec<WherePredicate> = match explicit {
        Some(given) => given.to_vec(),
        None => generics
            .type_params()
            .filter(|p| {
                described
                    .iter()
                    .any(|ty| mentions(ty.to_token_stream(), &p.ident))
            })
            .map(|p| {
                let ident = &p.ident;
                syn::parse_quote!(#ident: #krate::Schema)
            })
            .collect(),
    };
    generics.make_where_clause().predicates.extend(predicates);
    generics
}
