(ns mote-peer.fanin
  "fanin on core.async: S go blocks each put N/S ones on one receiver's inbox; the receiver
  counts to N and tells main."
  (:require [clojure.core.async :as a]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn validate [{:keys [s n]}]
  (when-not (and (pos? s) (zero? (rem n s)))
    (str "fanin: n=" n " must be a multiple of s=" s " >= 1")))

(defn fit
  "The warm-up's sizes: n rounded down to a multiple of s (at least s)."
  [{:keys [s n] :as p}]
  (assoc p :n (max s (- n (rem n s)))))

(defn run
  "The receiver's inbox has `buf` slots (0: every put waits for the receiver's take; at most
  S puts wait at once, well under core.async's 1024)."
  [_ {:keys [s n]} {:keys [buf]}]
  (let [s (long s)
        n (long n)
        per (quot n s)
        start (c/now)
        inbox (c/inbox buf)
        done (a/chan 1)]
    (a/go-loop [count 0 sum 0]
      (if (< count n)
        (recur (inc count) (+ sum (long (a/<! inbox))))
        (a/>! done [count sum])))
    (dotimes [_ s]
      (a/go (dotimes [_ per] (a/>! inbox 1))))
    (let [[count sum] (a/<!! done)
          wall (- (c/now) start)]
      (when-not (= count sum n)
        (c/fail! "fanin: received " count " messages summing to " sum ", want " n))
      {:wall-ns wall})))
