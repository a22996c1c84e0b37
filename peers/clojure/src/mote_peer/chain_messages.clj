(ns mote-peer.chain-messages
  "What travels down the chain and how main checks what comes out, shared by the agent and
  core.async chains."
  (:require [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn message-fn
  "The i-th message for `variant`: `int` sends i itself; `list20` sends the list 1..20,
  built once, so every message is a reference to the same immutable list."
  [variant]
  (case variant
    "int" identity
    "list20" (let [l (apply list (range 1 21))] (fn [_] l))))

(defn receive-all
  "Takes n messages with `take!` (main's receive) and checks them: `int` messages sum to
  n(n-1)/2, every `list20` message sums to 210. Exits with status 1 when they do not."
  [variant ^long n take!]
  (case variant
    "int" (let [sum (loop [i 0 s 0]
                      (if (< i n) (recur (inc i) (+ s (long (take!)))) s))
                want (quot (* n (dec n)) 2)]
            (when (not= sum want)
              (c/fail! "chain int: sum of " n " messages is " sum ", want " want)))
    "list20" (let [bad (loop [i 0 bad 0]
                         (if (< i n)
                           (recur (inc i) (if (= 210 (reduce + (take!))) bad (inc bad)))
                           bad))]
               (when (pos? bad)
                 (c/fail! "chain list20: " bad " of " n " lists do not sum to 210")))))
