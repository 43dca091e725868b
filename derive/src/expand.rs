//! The impl the derive writes: one `describe` that builds the type's part
//! of the schema model through a `kiln::schema::Describer`.
//!
//! The generated code names only the type's own fields' types; the
//! `Describer` does the rest (caching by type, recursion, names).

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use serde_derive_internals::{Ctxt, Derive, ast, name};
use syn::{DeriveInput, Ident, LitStr, Type};

use crate::bounds;
use crate::kiln_attrs::{self, ContainerAttrs, FieldAttrs, Override};
use crate::refuse::{self, Refusals};

/// What writing the impl gathers: the refusals, and the field types the
/// schema is built from (for the bounds).
struct Writer<'a> {
    krate: syn::Path,
    refusals: Refusals,
    described: Vec<Type>,
    marker: std::marker::PhantomData<&'a ()>,
    container_default: bool,
}

pub fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let kiln = ContainerAttrs::from_attrs(&input.attrs)?;
    let cx = Ctxt::new();
    // The name serde's derive gives its private module; the internals use
    // it only in code that this derive does not write.
    let private = Ident::new("__private", Span::call_site());
    let cont = ast::Container::from_ast(&cx, input, Derive::Deserialize, &private);
    cx.check()?;
    let Some(cont) = cont else {
        return Err(syn::Error::new_spanned(
            input,
            "kiln::Schema: not a struct or enum",
        ));
    };
    let krate = kiln
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::kiln));
    let mut w = Writer {
        krate,
        refusals: Refusals::default(),
        described: Vec::new(),
        marker: std::marker::PhantomData,
        container_default: !cont.attrs.default().is_none(),
    };
    refuse::container(&cont, &mut w.refusals);
    let body = w.body(&cont, &kiln)?;
    let Writer {
        krate,
        refusals,
        described,
        ..
    } = w;
    // With a refusal, the impl is still written (refused fields describe
    // as `unit`) beside the error, so that the error is the only one: every
    // use of the type would otherwise add a "Schema is not implemented".
    let refused = refusals.into_result().err().map(|e| e.into_compile_error());
    let described: Vec<&Type> = described.iter().collect();
    let generics = bounds::with_bounds(cont.generics, &described, kiln.bound.as_deref(), &krate);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let ident = &cont.ident;
    Ok(quote! {
        #refused
        #[automatically_derived]
        impl #impl_generics #krate::Schema for #ident #ty_generics #where_clause {
            fn describe(
                d: &mut #krate::schema::Describer,
            ) -> #krate::schema::model::Format {
                #body
            }
        }
    })
}

impl<'a> Writer<'a> {
    /// The body of `describe`.
    fn body(
        &mut self,
        cont: &'a ast::Container<'a>,
        kiln: &'a ContainerAttrs,
    ) -> syn::Result<TokenStream> {
        let name = cont.ident.to_string();
        if let Some(with) = &kiln.with {
            let format = self.override_format(with, &name);
            return Ok(self.transparent(format));
        }
        if let Some(target) = self.converted_type(cont) {
            self.check_not_self(target, &cont.ident, "#[serde(from/try_from/into)]");
            self.described.push(target.clone());
            let format = quote!(d.format::<#target>());
            return Ok(self.transparent(format));
        }
        if cont.attrs.transparent() {
            let field = cont
                .data
                .all_fields()
                .find(|f| f.attrs.transparent())
                .expect("serde's check marks the transparent field");
            self.check_not_self(field.ty, &cont.ident, "#[serde(transparent)]");
            let format = self.field_format(field, &format!("{name}.{}", member(field)))?;
            return Ok(self.transparent(format));
        }
        let krate = self.krate.clone();
        let serde_name = cont.attrs.name().deserialize_name().value.clone();
        let container = match &cont.data {
            ast::Data::Struct(style, fields) => {
                let shape = self.shape(*style, fields, &name)?;
                quote!(#krate::schema::model::Container::Struct(#shape))
            }
            ast::Data::Enum(variants) => {
                let mut items = Vec::new();
                for v in variants {
                    kiln_attrs::refuse_on_variant(&v.original.attrs)?;
                    let path = format!("{name}::{}", v.ident);
                    let shape = self.shape(v.style, &v.fields, &path)?;
                    let vname = v.attrs.name().deserialize_name().value.clone();
                    let aliases = aliases(v.attrs.aliases(), &vname);
                    let other = v.attrs.other();
                    items.push(quote! {
                        #krate::schema::model::Variant::new(#vname, #shape)
                            .with_aliases(&[#(#aliases),*])
                            .with_other(#other)
                    });
                }
                quote!(#krate::schema::model::Container::Enum(::std::vec![#(#items),*]))
            }
        };
        Ok(quote! {
            d.container::<Self>(#serde_name, ::core::any::type_name::<Self>(), |d| #container)
        })
    }

    /// `d.transparent::<Self>(...)`: a type with no line of its own.
    fn transparent(&self, format: TokenStream) -> TokenStream {
        quote!(d.transparent::<Self>(::core::any::type_name::<Self>(), |d| #format))
    }

    /// The type a `from`, `try_from` or `into` attribute reads or writes
    /// through, when there is one; two that differ are refused.
    fn converted_type(&mut self, cont: &'a ast::Container<'a>) -> Option<&'a Type> {
        let read = cont.attrs.type_from().or(cont.attrs.type_try_from());
        let written = cont.attrs.type_into();
        if let (Some(r), Some(w)) = (read, written)
            && r.to_token_stream().to_string() != w.to_token_stream().to_string()
        {
            self.refusals.push(
                &cont.ident,
                format!(
                    "`{}` is read through `{}` and written through `{}`; Kiln needs one \
                     schema for both: add #[kiln(with = Type)] naming the type whose \
                     schema the bytes have",
                    cont.ident,
                    r.to_token_stream(),
                    w.to_token_stream()
                ),
            );
        }
        read.or(written)
    }

    /// Refuses a type that is only a window on itself: it has no name in
    /// the schema text to refer back to (5.6).
    fn check_not_self(&mut self, ty: &Type, ident: &Ident, how: &str) {
        if bounds::mentions(ty.to_token_stream(), ident) {
            self.refusals.push(
                ty,
                format!(
                    "`{ident}` contains itself through {how}: a type with no line of \
                     its own in the schema text cannot refer back to itself. Remove \
                     {how} (a newtype struct costs no byte, and its name lets the \
                     text refer back to it)"
                ),
            );
        }
    }

    /// The shape of a struct or variant's fields.
    fn shape(
        &mut self,
        style: ast::Style,
        fields: &'a [ast::Field<'a>],
        path: &str,
    ) -> syn::Result<TokenStream> {
        let krate = self.krate.clone();
        let model = quote!(#krate::schema::model);
        for f in fields {
            refuse::field(f, &format!("{path}.{}", member(f)), &mut self.refusals);
        }
        let present: Vec<&ast::Field<'_>> = fields
            .iter()
            .filter(|f| !f.attrs.skip_deserializing())
            .collect();
        Ok(match style {
            ast::Style::Unit => quote!(#model::Shape::Unit),
            ast::Style::Newtype if present.len() == 1 => {
                let format = self.field_format(present[0], &format!("{path}.0"))?;
                quote!(#model::Shape::Newtype(#format))
            }
            ast::Style::Newtype | ast::Style::Tuple => {
                let mut items = Vec::new();
                for f in present {
                    items.push(self.field_format(f, &format!("{path}.{}", member(f)))?);
                }
                quote!(#model::Shape::Tuple(::std::vec![#(#items),*]))
            }
            ast::Style::Struct => {
                let mut items = Vec::new();
                for f in present {
                    let format = self.field_format(f, &format!("{path}.{}", member(f)))?;
                    let name = f.attrs.name().deserialize_name().value.clone();
                    let aliases = aliases(f.attrs.aliases(), &name);
                    let default = self.container_default || !f.attrs.default().is_none();
                    items.push(quote! {
                        #model::Field::new(#name, #format)
                            .with_default(#default)
                            .with_aliases(&[#(#aliases),*])
                    });
                }
                quote!(#model::Shape::Struct(::std::vec![#(#items),*]))
            }
        })
    }

    /// The format of one field: its type's, or its override's.
    fn field_format(&mut self, f: &'a ast::Field<'a>, path: &str) -> syn::Result<TokenStream> {
        let kiln = FieldAttrs::from_attrs(&f.original.attrs)?;
        if let Some(with) = &kiln.with {
            return Ok(self.override_format(with, path));
        }
        let hidden = f.attrs.serialize_with().or(f.attrs.deserialize_with());
        let ty = f.ty;
        match hidden {
            // serde's own reader of a borrowed `Cow` (`#[serde(borrow)]`):
            // a string, or a byte string, as the type says.
            Some(with) if uses_module(with, "borrow_cow_bytes") => {
                let krate = &self.krate;
                Ok(quote!(#krate::schema::model::Format::Bytes))
            }
            Some(with) if uses_module(with, "borrow_cow_str") => {
                self.described.push(ty.clone());
                Ok(quote!(d.format::<#ty>()))
            }
            None => {
                self.described.push(ty.clone());
                Ok(quote!(d.format::<#ty>()))
            }
            Some(with) if uses_module(with, "serde_ndarray") => {
                let krate = &self.krate;
                Ok(quote!(#krate::schema::describe_ndarray::<#ty>(d)))
            }
            Some(with) if uses_module(with, "serde_bytes") => {
                let krate = &self.krate;
                Ok(quote!(#krate::schema::model::Format::Bytes))
            }
            Some(with) if uses_module(with, "rust_decimal") => {
                let krate = &self.krate;
                let model = quote!(#krate::schema::model);
                let str_option =
                    quote!(#model::Format::Option(::std::boxed::Box::new(#model::Format::Str)));
                let f64_option =
                    quote!(#model::Format::Option(::std::boxed::Box::new(#model::Format::F64)));
                let module = with
                    .path
                    .segments
                    .iter()
                    .rev()
                    .nth(1)
                    .map(|s| s.ident.to_string());
                match module.as_deref() {
                    Some("str") => Ok(quote!(#model::Format::Str)),
                    Some("str_option") => Ok(str_option),
                    Some("float") => Ok(quote!(#model::Format::F64)),
                    Some("float_option") => Ok(f64_option),
                    _ => Ok(self.needs_override(f, path, with)),
                }
            }
            Some(with) => Ok(self.needs_override(f, path, with)),
        }
    }

    /// Refuses a `with` field that has no `#[kiln(...)]` saying what it
    /// writes.
    fn needs_override(
        &mut self,
        f: &ast::Field<'_>,
        path: &str,
        with: &syn::ExprPath,
    ) -> TokenStream {
        self.refusals.push(
            f.original,
            format!(
                "`{path}` is written by `{}`, which serde cannot show; say what it \
                 writes with #[kiln(with = Type)] (a type serde writes the same way, \
                 such as #[kiln(with = String)] for a value written as text) or \
                 #[kiln(schema = \"str\")] (a format of chapter 5)",
                with.to_token_stream().to_string().replace(' ', "")
            ),
        );
        quote!(d.format::<()>())
    }

    /// The format an override gives.
    fn override_format(&mut self, with: &Override, path: &str) -> TokenStream {
        match with {
            Override::With(ty) => {
                self.described.push((**ty).clone());
                quote!(d.format::<#ty>())
            }
            Override::Text(text) => {
                let path = LitStr::new(path, text.span());
                quote!(d.format_text(#text, #path))
            }
        }
    }
}

/// A field's name in paths: its identifier, or its position.
fn member(f: &ast::Field<'_>) -> String {
    match &f.member {
        syn::Member::Named(ident) => ident.to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    }
}

/// The aliases serde accepts besides `name`, in serde's (sorted) order.
fn aliases(set: &std::collections::BTreeSet<name::Name>, name: &str) -> Vec<String> {
    set.iter()
        .map(|a| a.value.clone())
        .filter(|a| a != name)
        .collect()
}

/// Whether a `with` path goes through `module`, one of the adapters whose
/// format Kiln knows: `serde_bytes` (always `bytes`), Kiln's own
/// `serde_ndarray` (`array<T>`) and `rust_decimal::serde::{str, float}`.
fn uses_module(path: &syn::ExprPath, module: &str) -> bool {
    path.path.segments.iter().any(|s| s.ident == module)
}
