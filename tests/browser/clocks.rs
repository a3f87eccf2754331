//! The players' clocks on the page: the new-game dialog's clock, both clocks drawn, the
//! running one marked and ticking down between the server's states, and a loss on time shown.
//! Reads `#black-clock` and `#white-clock` (`data-left`, class `running`).

use super::*;

/// One clock as the page shows it.
#[derive(Debug, Clone, PartialEq)]
struct ClockView {
    shown: bool,
    text: String,
    left: Option<f64>,
    running: bool,
}

const CLOCKS_JS: &str = r#"
const r = {};
for (const c of ['black', 'white']) {
  const e = document.getElementById(c + '-clock');
  r[c] = [!e.hidden, e.textContent,
    e.dataset.left === undefined ? null : Number(e.dataset.left), e.classList.contains('running')];
}
return r;
"#;

async fn clocks(c: &Client) -> (ClockView, ClockView) {
    let v = c.execute(CLOCKS_JS, vec![]).await.expect("the clocks read");
    let one = |k: &str| ClockView {
        shown: v[k][0].as_bool().unwrap_or(false),
        text: v[k][1].as_str().unwrap_or("").to_string(),
        left: v[k][2].as_f64(),
        running: v[k][3].as_bool().unwrap_or(false),
    };
    (one("black"), one("white"))
}

/// Waits until the clocks are as `ok` wants.
async fn wait_clocks(
    c: &Client,
    what: &str,
    ok: impl Fn(&ClockView, &ClockView) -> bool,
) -> (ClockView, ClockView) {
    let t = Instant::now();
    loop {
        let (b, w) = clocks(c).await;
        if ok(&b, &w) {
            return (b, w);
        }
        assert!(
            t.elapsed() < PATIENCE,
            "timed out waiting for {what}: {b:?} {w:?}"
        );
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
}

/// A local game with a clock of `minutes` and `increment` seconds, from the dialog.
async fn clocked_game(c: &Client, server: &Server, minutes: &str, increment: &str) -> Snap {
    c.goto(&format!("{}/", server.url)).await.unwrap();
    click(c, "#new-form input[name=mode][value=local]").await;
    click(c, "#new-form input[name=clocked]").await;
    fill(c, "#new-form input[name=time]", minutes).await;
    fill(c, "#new-form input[name=increment]", increment).await;
    click(c, "#new-start").await;
    wait_for(c, "a new local game", |s| s.you == "both").await
}

#[tokio::test]
#[cfg_attr(
    outflank_no_chromium,
    ignore = "needs chromium and chromedriver (apt-get install chromium chromium-driver), missing when the tests were built"
)]
async fn both_clocks_are_drawn_and_the_running_one_ticks() {
    browser_test!("clocks", |server, driver| {
        let c = driver.browser("clocks").await;
        clocked_game(&c, &server, "1", "2").await;
        let (b, w) = wait_clocks(&c, "both clocks drawn", |b, w| {
            b.shown && w.shown && b.left.is_some() && w.left.is_some()
        })
        .await;
        assert!(b.running && !w.running, "black's clock runs: {b:?} {w:?}");
        assert_eq!(w.left, Some(60.0), "{w:?}");
        assert_eq!(w.text, "1:00");
        let first = b.left.unwrap();
        // The page counts down by itself: no state comes while nobody moves.
        let (b2, w2) = wait_clocks(&c, "black's clock ticking", |b, _| {
            b.left.is_some_and(|l| l <= first - 1.0)
        })
        .await;
        assert!(b2.running, "{b2:?}");
        assert_eq!(w2.left, Some(60.0), "white's clock stands: {w2:?}");
        click(&c, "#board .sq[data-sq=f5]").await;
        let (b3, w3) = wait_clocks(&c, "white's clock running after f5", |_, w| w.running).await;
        assert!(!b3.running, "{b3:?}");
        let left = b3.left.unwrap();
        assert!(
            left > b2.left.unwrap() && left <= 62.0,
            "black's time with the 2 s increment, more than before the move: {b2:?} {b3:?}"
        );
        let white_from = w3.left.unwrap();
        wait_clocks(&c, "white's clock ticking", |_, w| {
            w.left.is_some_and(|l| l <= white_from - 1.0)
        })
        .await;
        // A clock that runs out: the page says so.
        clocked_game(&c, &server, "0.1", "0").await;
        let s = wait_for(&c, "the game lost on time", |s| s.over).await;
        let result = s.result.clone().unwrap_or_default();
        assert!(
            result.contains("Black ran out of time: White wins"),
            "{s:#?}"
        );
        let (b, w) = clocks(&c).await;
        assert_eq!(b.left, Some(0.0), "{b:?}");
        assert!(!b.running && !w.running, "no clock runs once over");
        // Against the engine at a level with a clock: the person's clock alone.
        c.goto(&format!("{}/", server.url)).await.unwrap();
        click(&c, "#new-form input[name=mode][value=engine]").await;
        c.find(Locator::Css("#new-form select[name=color]"))
            .await
            .unwrap()
            .select_by_value("black")
            .await
            .unwrap();
        click(&c, "#new-form input[name=clocked]").await;
        fill(&c, "#new-form input[name=time]", "1").await;
        click(&c, "#new-form input[name=strength][value=level]").await;
        fill(&c, "#new-form input[name=level]", "1").await;
        click(&c, "#new-start").await;
        wait_for(&c, "a game against level 1", |s| s.you == "black").await;
        let (b, w) = wait_clocks(&c, "the person's clock alone", |b, w| {
            b.shown && b.running && !w.shown
        })
        .await;
        assert!(b.left.is_some_and(|l| l <= 60.0), "{b:?} {w:?}");
        c.close().await.unwrap();
    });
}
