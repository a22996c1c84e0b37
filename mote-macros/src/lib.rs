//! Procedural macros of mote, re-exported by the `mote` crate: use them as `#[mote::test]`
//! and `#[derive(mote::server::Request)]`.
//!
//! This crate is an implementation detail; its items are documented where `mote`
//! re-exports them.

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, FnArg, ItemFn, Lit, Meta, Token};

mod request;

/// Implements `mote::server::Request` with the reply type named by `#[reply(Type)]`; see
/// `mote::server::Request`.
#[proc_macro_derive(Request, attributes(reply))]
pub fn derive_request(item: TokenStream) -> TokenStream {
    match request::expand(item.into()) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Runs an `async fn` as a test inside a fresh mote process; see `mote::test`.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    match expand(args.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> syn::Result<proc_macro2::TokenStream> {
    let mut func: ItemFn = syn::parse2(item)?;
    let timeout_ms = parse_timeout(args)?;

    if func.sig.asyncness.is_none() {
        return Err(syn::Error::new(
            func.sig.fn_token.span(),
            "#[mote::test] needs an `async fn`",
        ));
    }
    if !func.sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            func.sig.generics.span(),
            "#[mote::test] functions cannot be generic",
        ));
    }
    let inputs = func.sig.inputs.clone();
    if inputs.len() > 1 {
        return Err(syn::Error::new(
            inputs.span(),
            "#[mote::test] functions take no argument or one `mote::Process<M>`",
        ));
    }

    let name = func.sig.ident.clone();
    let attrs = std::mem::take(&mut func.attrs);
    let vis = func.vis.clone();
    // The user's function keeps its body and signature, renamed and nested in the test.
    let inner = syn::Ident::new("__mote_test_body", Span::call_site());
    func.sig.ident = inner.clone();
    func.vis = syn::Visibility::Inherited;

    let call = match inputs.first() {
        None => quote! { |_p: ::mote::Process<()>| #inner() },
        Some(FnArg::Typed(arg)) => {
            let ty = &arg.ty;
            quote_spanned! { ty.span()=> |p: #ty| #inner(p) }
        }
        Some(FnArg::Receiver(r)) => {
            return Err(syn::Error::new(
                r.span(),
                "#[mote::test] functions take no `self`",
            ))
        }
    };

    Ok(quote! {
        #[::core::prelude::v1::test]
        #(#attrs)*
        #vis fn #name() {
            #func
            ::mote::testkit::run_test(
                ::core::time::Duration::from_millis(#timeout_ms),
                #call,
            )
        }
    })
}

/// `timeout = "10s"` / `"250ms"` / `timeout_ms = 250`; the default is 60 seconds.
fn parse_timeout(args: proc_macro2::TokenStream) -> syn::Result<u64> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;
    let mut timeout = 60_000;
    for meta in metas {
        let Meta::NameValue(nv) = &meta else {
            return Err(syn::Error::new(meta.span(), "expected `timeout = \"10s\"`"));
        };
        let key = nv
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        let Expr::Lit(lit) = &nv.value else {
            return Err(syn::Error::new(nv.value.span(), "expected a literal"));
        };
        timeout = match (key.as_str(), &lit.lit) {
            ("timeout", Lit::Str(s)) => parse_duration_ms(&s.value()).ok_or_else(|| {
                syn::Error::new(s.span(), "expected a duration like \"10s\" or \"250ms\"")
            })?,
            ("timeout_ms", Lit::Int(i)) => i.base10_parse()?,
            _ => {
                return Err(syn::Error::new(
                    meta.span(),
                    "unknown option: expected `timeout = \"10s\"` or `timeout_ms = 250`",
                ))
            }
        };
    }
    Ok(timeout)
}

fn parse_duration_ms(s: &str) -> Option<u64> {
    let s = s.trim();
    let (number, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1000)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60_000)
    } else {
        return None;
    };
    number.trim().parse::<u64>().ok()?.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::{expand, parse_duration_ms};
    use quote::quote;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration_ms("250ms"), Some(250));
        assert_eq!(parse_duration_ms("10s"), Some(10_000));
        assert_eq!(parse_duration_ms("2m"), Some(120_000));
        assert_eq!(parse_duration_ms("ten"), None);
        assert_eq!(parse_duration_ms("5"), None);
    }

    #[test]
    fn a_sync_fn_is_refused() {
        let err = expand(
            quote!(),
            quote!(
                fn t() {}
            ),
        )
        .unwrap_err();
        assert!(err.to_string().contains("async fn"));
    }

    #[test]
    fn an_unknown_option_is_refused() {
        let err = expand(
            quote!(retries = 3),
            quote!(
                async fn t() {}
            ),
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown option"));
    }

    #[test]
    fn the_timeout_reaches_the_runner() {
        let out = expand(
            quote!(timeout = "3s"),
            quote!(
                async fn t() {}
            ),
        )
        .unwrap()
        .to_string();
        assert!(out.contains("from_millis (3000u64)"), "{out}");
    }
}
