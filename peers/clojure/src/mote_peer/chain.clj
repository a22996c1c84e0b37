(ns mote-peer.chain
  "chain on core.async: M relays, each a go block reading its inbox channel and writing
  every message to the next relay's; main feeds the head and takes N messages off the end."
  (:require [clojure.core.async :as a]
            [mote-peer.chain-messages :as msgs]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn- relay
  "Forwards everything from `in` to `out`; when `in` closes, closes `out`, so closing the
  head shuts the whole chain down."
  [in out]
  (a/go-loop []
    (if-some [m (a/<! in)]
      (do (a/>! out m) (recur))
      (a/close! out))))

(defn run
  "Every channel (each relay's inbox and main's) has `buf` slots; 0 is unbuffered, where
  each hand-off waits for the receiver. Main sends from a go block, as core.async code that
  feeds a chain while taking from its end does: with unbuffered channels a sending thread
  would otherwise stall the receiving one."
  [variant {:keys [m n]} {:keys [buf]}]
  (let [msg (msgs/message-fn variant)
        n (long n)
        start (c/now)
        end (c/inbox buf)
        head (reduce (fn [out _] (let [in (c/inbox buf)] (relay in out) in)) end (range m))]
    (a/go (dotimes [i n] (a/>! head (msg i))))
    (msgs/receive-all variant n #(a/<!! end))
    (let [wall (- (c/now) start)]
      (a/close! head)
      {:wall-ns wall})))
