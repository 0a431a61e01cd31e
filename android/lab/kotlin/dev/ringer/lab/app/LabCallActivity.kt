package dev.ringer.lab.app

/**
 * The app's call activity as the notifications' intents name it (`CallNotificationConfig.activity`). The lab's app
 * has no screens: the host plays the user's taps itself (`answer`, `decline`, `hang_up`).
 */
class LabCallActivity
