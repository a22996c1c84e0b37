//! The dashboard in a real headless Chromium: the page shows a known supervision tree, and
//! its kill button kills (a permanent child comes back under a new pid, a temporary one is
//! gone).
//!
//! Chromium is found as `$MOTE_CHROMIUM`, or `chromium`, `chromium-browser`,
//! `google-chrome` on the `PATH` (Debian: `apt-get install chromium`). Without one the
//! test prints SKIP and passes, unless `MOTE_REQUIRE_BROWSER=1`, when it fails. With
//! `MOTE_DASHBOARD_SCREENSHOT=file.png` it also saves a screenshot of the page.

mod common;

use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

use common::{eventually, start_tree};
use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};

fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("MOTE_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
    .find(|candidate| candidate.is_file())
}

/// Evaluates `js` in the page; its value as a string (`None` for null or undefined).
fn text(tab: &Tab, js: &str) -> Option<String> {
    let value = tab
        .evaluate(js, false)
        .expect("evaluating in the page")
        .value?;
    match value {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

/// The pid the tree shows for the process named `name`, if the tree shows it.
fn tree_pid(tab: &Tab, name: &str) -> Option<String> {
    text(
        tab,
        &format!(r#"document.querySelector('#tree .node[data-name="{name}"]')?.dataset.pid"#),
    )
    .filter(|pid| !pid.is_empty())
}

/// Clicks the element `selector` finds. The page redraws what changed once a second, so
/// an element found by one call may be replaced before a click sent by another lands (on
/// a loaded machine, every time): the click is made inside the page, in the same script
/// that finds the element, and tried again until an element was there to click.
fn click(tab: &Tab, selector: &str) {
    let script = format!(
        "(() => {{ const e = document.querySelector({}); if (!e) return null; e.click(); return 'clicked'; }})()",
        serde_json::to_string(selector).expect("a string")
    );
    eventually(&format!("a click on {selector}"), || {
        (text(tab, &script).as_deref() == Some("clicked")).then_some(())
    });
}

/// Clicks the tree node of `name`, then waits for the detail pane to show `pid`.
fn select(tab: &Tab, name: &str, pid: &str) {
    click(tab, &format!(r#"#tree .node[data-name="{name}"]"#));
    eventually(&format!("the detail pane to show {name}"), || {
        (text(tab, "document.querySelector('#detail-pid')?.textContent").as_deref() == Some(pid))
            .then_some(())
    });
}

#[test]
fn the_page_shows_the_tree_and_its_kill_button_kills() {
    let Some(chrome) = chromium() else {
        assert_ne!(
            std::env::var("MOTE_REQUIRE_BROWSER").as_deref(),
            Ok("1"),
            "MOTE_REQUIRE_BROWSER=1 but no chromium was found (set MOTE_CHROMIUM or install chromium)"
        );
        println!("SKIP: no chromium found; the dashboard's browser test did not run");
        return;
    };
    let tree = start_tree("browser");
    let dashboard = mote_dashboard::Dashboard::new()
        .sample_every(Duration::from_millis(200))
        .serve("127.0.0.1:0")
        .expect("the dashboard starts");

    let browser = Browser::new(
        LaunchOptions::default_builder()
            .path(Some(chrome))
            .headless(true)
            // As root (CI), Chromium runs only without its sandbox.
            .sandbox(false)
            .window_size(Some((1400, 900)))
            .args(vec![OsStr::new("--disable-dev-shm-usage")])
            .idle_browser_timeout(Duration::from_secs(120))
            .build()
            .expect("launch options"),
    )
    .expect("starting chromium");
    let tab = browser.new_tab().expect("a tab");
    tab.set_default_timeout(common::WAIT);
    tab.navigate_to(&dashboard.url())
        .and_then(|t| t.wait_until_navigated())
        .expect("loading the dashboard");

    // The known tree, each process under its supervisor, with the pids the runtime has.
    for name in ["root", "worker", "inner", "leaf", "sessions", "temp"] {
        tab.wait_for_element(&format!(r#"#tree .node[data-name="browser_{name}"]"#))
            .unwrap_or_else(|e| panic!("browser_{name} is not in the tree: {e}"));
    }
    for (parent, child) in [
        ("root", "worker"),
        ("root", "inner"),
        ("inner", "leaf"),
        ("root", "sessions"),
        ("sessions", "temp"),
    ] {
        let nested = format!(
            r#"#tree .node[data-name="browser_{parent}"] + ul .node[data-name="browser_{child}"]"#
        );
        tab.find_element(&nested)
            .unwrap_or_else(|e| panic!("browser_{child} is not under browser_{parent}: {e}"));
    }
    let worker = tree.worker.to_string();
    assert_eq!(tree_pid(&tab, "browser_worker"), Some(worker.clone()));
    assert_eq!(tree_pid(&tab, "browser_root"), Some(tree.root.to_string()));
    // The table lists them too, and the page says it is live.
    tab.wait_for_element(r#"#processes tr[data-name="browser_worker"]"#)
        .expect("the worker's row");
    eventually("the page to be live", || {
        (text(&tab, "document.querySelector('#conn').textContent").as_deref() == Some("live"))
            .then_some(())
    });

    // Kill the permanent worker: its supervisor starts a new one, which the tree shows.
    select(&tab, "browser_worker", &worker);
    assert_eq!(
        text(&tab, "document.querySelector('#detail-name').textContent").as_deref(),
        Some("browser_worker")
    );
    click(&tab, "#kill");
    let restarted = eventually("the tree to show the restarted worker", || {
        tree_pid(&tab, "browser_worker").filter(|pid| *pid != worker)
    });
    assert!(!mote::is_alive(tree.worker), "the killed worker still runs");
    assert_eq!(
        mote::whereis("browser_worker").map(|id| id.to_string()),
        Some(restarted.clone())
    );
    eventually("the old worker to leave the table", || {
        let gone =
            format!(r#"document.querySelector('#processes tr[data-pid="{worker}"]') === null"#);
        (text(&tab, &gone).as_deref() == Some("true")).then_some(())
    });
    eventually("the detail pane to say the old worker is gone", || {
        text(&tab, "document.querySelector('#detail-gone')?.textContent")
            .filter(|t| t.contains("not alive"))
    });

    // Kill the temporary session: gone for good.
    let temp = tree.temporary.to_string();
    select(&tab, "browser_temp", &temp);
    click(&tab, "#kill");
    eventually("the temporary child to leave the tree", || {
        tree_pid(&tab, "browser_temp").is_none().then_some(())
    });
    assert!(!mote::is_alive(tree.temporary));
    assert!(mote::is_alive(tree.sessions), "its supervisor lives on");

    if let Some(path) = std::env::var_os("MOTE_DASHBOARD_SCREENSHOT") {
        let png = tab
            .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
            .expect("a screenshot");
        std::fs::write(&path, png).expect("writing the screenshot");
    }
    dashboard.stop();
}
